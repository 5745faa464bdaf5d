/**
 * The code has floors (.dependency-cruiser.cjs): no module imports itself through others (type-only and lazy
 * `import()` count), and a top-level folder imports only the folders its floor lists, so no two folders import each
 * other and the SDK (client/) stands on channels/ and lib/ alone.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const CONFIG = path.join(root, ".dependency-cruiser.cjs");
const require = createRequire(import.meta.url);
const { FLOORS } = (require(CONFIG) as { floors: { FLOORS: Record<string, string[]> } }).floors;
const BIN = path.join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

/** The check as `npm run check:imports` runs it, in `cwd`. */
const cruise = (cwd: string) => {
  const run = spawnSync(process.execPath, [BIN, "--config", CONFIG, "--output-type", "err", "."], {
    cwd,
    encoding: "utf8",
  });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
};

describe("the floors", () => {
  it("have no circle themselves: the folders stand in an order", () => {
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (folder: string, trail: string[]) => {
      expect(visiting.has(folder), `floors in a circle: ${[...trail, folder].join(" → ")}`).toBe(false);
      if (done.has(folder)) return;
      visiting.add(folder);
      for (const below of FLOORS[folder] ?? []) visit(below, [...trail, folder]);
      visiting.delete(folder);
      done.add(folder);
    };
    for (const folder of Object.keys(FLOORS)) visit(folder, []);
    expect(FLOORS.client).toEqual(["channels", "lib"]);
    expect(FLOORS.channels).toEqual(["lib"]);
  });

  it("hold in the code: no import circle, no folder importing one it may not", () => {
    const { ok, output } = cruise(root);
    expect(output).toContain("no dependency violations found");
    expect(ok).toBe(true);
  }, 120_000);

  it("are checked for what they are: a lazy import closing a circle, a folder importing one above it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "watch-floors-"));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), text);
      };
      write("tsconfig.json", JSON.stringify({ compilerOptions: { module: "esnext", moduleResolution: "bundler" } }));
      write("server/a.ts", 'import { b } from "./b";\nexport const a = () => b;\n');
      write("server/b.ts", 'export const b = async () => (await import("./a")).a;\n');
      write("lib/c.ts", 'import { a } from "../server/a";\nexport const c = a;\n');
      const { ok, output } = cruise(dir);
      expect(ok).toBe(false);
      expect(output).toMatch(/no-circular: server\/(a|b)\.ts/);
      expect(output).toContain("floor-lib: lib/c.ts → server/a.ts");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
