/** Paging from the clients, against the shared server: the SDK's `watches.page()` and `watchctl list --limit/--offset`. */
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@/client";
import { createTask, newApiKeyUser, server } from "../helpers/api";
import { root } from "../helpers/server";

function watchctl(env: Record<string, string>, ...args: string[]) {
  const child = spawn(process.execPath, [path.join(root, "scripts/watchctl.mjs"), ...args], {
    env: { PATH: process.env.PATH, HOME: os.tmpdir(), ...env } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}

describe("paging from the clients", () => {
  let user: Awaited<ReturnType<typeof newApiKeyUser>>;
  /** Newest first, as the list answers. */
  let ids: string[];
  beforeAll(async () => {
    user = await newApiKeyUser();
    ids = [];
    for (const name of ["one", "two", "three", "four", "five"])
      ids.unshift((await createTask(user.apiKey, { name, search_query: `paging ${name}` })).id);
  });

  it("SDK: list takes limit/offset, page() also says how many there are", async () => {
    const sdk = createClient({ apiKey: user.apiKey, baseUrl: server().url });
    expect((await sdk.watches.list()).map((t) => t.id)).toEqual(ids);
    expect((await sdk.watches.list({ limit: 2, offset: 1 })).map((t) => t.id)).toEqual(ids.slice(1, 3));
    const page = await sdk.watches.page({ limit: 2, offset: 4 });
    expect(page.items.map((t) => t.id)).toEqual(ids.slice(4));
    expect(page.total).toBe(5);
    await expect(sdk.watches.list({ limit: 501 })).rejects.toMatchObject({ status: 422 });
  });

  it("watchctl list --limit/--offset prints the page and where it is in the whole", async () => {
    const env = { SERVICE_API_KEY: user.apiKey, SERVICE_URL: server().url, XDG_CONFIG_HOME: os.tmpdir() };
    const page = await watchctl(env, "list", "--limit", "2", "--offset", "2");
    expect(page).toMatchObject({ code: 0, stderr: "" });
    expect(page.stdout).toMatch(new RegExp(`${ids[2]}\\s+three[\\s\\S]*${ids[3]}\\s+two`));
    expect(page.stdout).not.toContain(ids[1]!);
    expect(page.stdout).toMatch(/^3–4 of 5$/m);
    expect((await watchctl(env, "list", "--offset", "9")).stdout).toBe("none (5 in all)\n");
    const json = await watchctl(env, "--json", "list", "--limit", "1");
    expect(JSON.parse(json.stdout).map((t: { id: string }) => t.id)).toEqual([ids[0]]);
    expect(await watchctl(env, "list", "--limit", "0")).toMatchObject({ code: 2 });
  });
});
