/**
 * The watchctl bin (scripts/watchctl.mjs), spawned against the shared server: what only a process of its own shows
 * (its start through tsx, arguments, environment, the saved login, exit codes, output streams). Every command's
 * behaviour is tested in-process (tests/service/cli.test.ts), the same `main` without a process per command.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { newApiKeyUser, server } from "../helpers/api";
import { freePort, root, tempDir } from "../helpers/server";

type Run = { code: number | null; stdout: string; stderr: string; json: () => any };

/** Runs watchctl with only the given environment (no SERVICE_* leaks in from the test runner); stdin is not a TTY. */
function watchctl(env: Record<string, string>, ...args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [path.join(root, "scripts/watchctl.mjs"), ...args], {
    env: { PATH: process.env.PATH, HOME: os.tmpdir(), ...env } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) })),
  );
}

describe("the watchctl bin", () => {
  it("logs in, then works from the saved login; exit codes 0, 1 (the API refused) and 2 (usage)", async () => {
    const user = await newApiKeyUser();
    const xdg = tempDir("watchctl-");
    const cli = (...args: string[]) => watchctl({ XDG_CONFIG_HOME: xdg }, ...args);

    const login = await cli("login", "--key", user.apiKey, "--url", server().url);
    expect(login).toMatchObject({ code: 0, stderr: "" });
    expect(login.stdout).toContain(`Logged in as ${user.email}`);
    expect(fs.statSync(path.join(xdg, "watchctl", "config.json")).mode & 0o777).toBe(0o600);

    const created = await cli("--json", "create", "Zig 1.0", "--when", "1.0 is tagged", "--paused");
    expect(created).toMatchObject({ code: 0, stderr: "" });
    const id = created.json().id as string;
    expect((await cli("list")).stdout).toMatch(new RegExp(`${id}\\s+Zig 1.0\\s+paused\\s+never run`));

    expect(await cli("complete", id)).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "Error (400): Invalid state transition: paused -> completed\n",
    });
    const usage = await cli("frobnicate");
    expect(usage).toMatchObject({ code: 2, stdout: "" });
    expect(usage.stderr).toContain("error: unknown command 'frobnicate'");
  });

  it("reads SERVICE_URL and SERVICE_API_KEY from its environment", async () => {
    const user = await newApiKeyUser();
    const xdg = tempDir("watchctl-");
    const env = { XDG_CONFIG_HOME: xdg, SERVICE_URL: server().url, SERVICE_API_KEY: user.apiKey };
    expect((await watchctl(env, "--json", "whoami")).json()).toMatchObject({ email: user.email });
    const deadUrl = `http://127.0.0.1:${await freePort()}`;
    expect(await watchctl({ ...env, SERVICE_URL: deadUrl }, "whoami")).toMatchObject({
      code: 1,
      stderr: "Error: fetch failed (ECONNREFUSED)\n",
    });
  });
});
