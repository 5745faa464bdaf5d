/** .env.example and the configuration docs are generated from server/env.ts; this keeps them in step. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { groups } from "@/server/env";
import { renderEnvExample, withEnvTable } from "@/server/env-docs";

const root = path.resolve(import.meta.dirname, "../..");
const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");

describe("configuration docs", () => {
  it("every variable has a description", () => {
    for (const shape of Object.values(groups))
      for (const [name, schema] of Object.entries(shape)) expect(schema.description, name).toBeTruthy();
  });

  it(".env.example is what server/env.ts renders (run `npm run env:example`)", () => {
    expect(read(".env.example")).toBe(renderEnvExample());
  });

  it("docs/configuration.md's table is what server/env.ts renders (run `npm run env:example`)", () => {
    const docs = read("docs/configuration.md");
    expect(docs).toBe(withEnvTable(docs));
  });
});
