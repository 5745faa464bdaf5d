/** The SDK (client/) and the watchctl CLI against the real server: API-key mode, NOAUTH mode, errors, 429 retries. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError, ConflictError, createClient, NotFoundError, RateLimitError, ValidationError, type WatchClient } from "@/client";
import { main, type Io } from "@/client/cli";
import { call, newApiKeyUser, newUser, server } from "../helpers/api";
import { root, startServer, type RunningServer } from "../helpers/server";

describe("SDK with an API key", () => {
  let sdk: WatchClient;
  let user: Awaited<ReturnType<typeof newApiKeyUser>>;
  beforeAll(async () => {
    user = await newApiKeyUser();
    sdk = createClient({ apiKey: user.apiKey, baseUrl: server().url });
  });

  it("covers every watch operation", async () => {
    expect((await sdk.me()).email).toBe(user.email);
    const created = await sdk.watch("Postgres 19 beta").when("a beta release is announced").named("pg19").notify({ webhook: "https://example.com/hook" }).paused().create();
    expect(created).toMatchObject({ name: "pg19", state: "paused", condition_description: "a beta release is announced" });
    expect(created.notifications).toEqual([{ type: "webhook", url: "https://example.com/hook", method: "POST", headers: {} }]);
    expect((await sdk.watches.list()).map((t) => t.id)).toContain(created.id);
    expect(await sdk.watches.list({ state: "active" })).toEqual([]);
    expect((await sdk.watches.get(created.id)).id).toBe(created.id);
    expect((await sdk.watches.update(created.id, { name: "renamed" })).name).toBe("renamed");

    const execution = await sdk.watches.execute(created.id);
    expect(execution.status).toMatch(/pending|running|failed|success/);
    await expect(sdk.watches.execute(created.id)).rejects.toBeInstanceOf(ConflictError);
    expect((await sdk.watches.execute(created.id, { force: true })).id).not.toBe(execution.id);
    expect((await sdk.watches.executions(created.id, { limit: 1 })).length).toBe(1);
    expect(await sdk.watches.findings(created.id)).toEqual([]);

    await expect(sdk.watches.setVisibility(created.id, true)).rejects.toThrow(/username/i);
    const fork = await sdk.watches.fork(created.id, { name: "mine too" });
    expect(fork).toMatchObject({ name: "mine too", state: "paused", forked_from_task_id: created.id });
    expect(await sdk.notifications.sends({ task_id: created.id })).toEqual({ sends: [], total: 0 });
    const secret = await sdk.webhookSecret.get();
    expect(secret).toMatch(/^whsec_/);
    expect(await sdk.webhookSecret.rotate()).not.toBe(secret);
    expect((await sdk.apiKeys.list()).map((k) => k.id)).toContain(user.keyId);

    await sdk.watches.delete(fork.id);
    await expect(sdk.watches.get(fork.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("maps errors to typed classes with the server's detail", async () => {
    const other = await newApiKeyUser();
    const theirs = await createClient({ apiKey: other.apiKey, baseUrl: server().url }).watches.create({ search_query: "theirs", state: "paused" });
    const notFound = await sdk.watches.get(theirs.id).catch((e) => e);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound).toMatchObject({ status: 404, detail: "Task not found" });

    const invalid = await sdk.watches.create({ search_query: "" }).catch((e) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid.status).toBe(422);
    expect(invalid.fields[0]).toMatchObject({ loc: ["body", "search_query"] });

    const badChannel = await sdk.watches.create({ search_query: "x", notifications: [{ type: "email", address: "nope" }] }).catch((e) => e);
    expect(badChannel).toBeInstanceOf(ValidationError);
    expect(badChannel.status).toBe(400);
    expect(badChannel.message).toMatch(/Invalid notification/);
  });

  it("a revoked key raises AuthenticationError", async () => {
    const u = await newApiKeyUser();
    const c = createClient({ apiKey: u.apiKey, baseUrl: server().url });
    await c.apiKeys.revoke(u.keyId);
    const e = await c.watches.list().catch((err) => err);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e.detail).toBe("Invalid API key");
  });
});

const capture = (env: Record<string, string | undefined>) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { stdout: (s) => out.push(s), stderr: (s) => err.push(s), env, isTTY: false };
  const run = async (...argv: string[]) => {
    out.length = 0;
    err.length = 0;
    const code = await main(argv, io);
    return { code, stdout: out.join(""), stderr: err.join(""), json: () => JSON.parse(out.join("")) };
  };
  return run;
};

describe("watchctl with an API key", () => {
  let run: ReturnType<typeof capture>;
  let home: string;
  let user: Awaited<ReturnType<typeof newApiKeyUser>>;
  beforeAll(async () => {
    user = await newApiKeyUser();
    home = fs.mkdtempSync(path.join(os.tmpdir(), "watchctl-"));
    run = capture({ XDG_CONFIG_HOME: home });
  });

  it("login stores the key readable only by the user; every command works from it", async () => {
    const login = await run("login", "--key", user.apiKey, "--url", server().url);
    expect(login).toMatchObject({ code: 0 });
    expect(login.stdout).toContain(`Logged in as ${user.email}`);
    const file = path.join(home, "watchctl", "config.json");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect((await run("whoami")).stdout).toContain(user.email);

    const created = await run("--json", "create", "Rust 2027 edition", "--when", "the edition is stabilised", "--webhook", "https://example.com/h", "--paused");
    expect(created.code).toBe(0);
    const task = created.json();
    expect(task).toMatchObject({ search_query: "Rust 2027 edition", name: "Rust 2027 edition", state: "paused" });
    const id = task.id as string;

    expect((await run("list")).stdout).toMatch(new RegExp(`${id}\\s+Rust 2027 edition\\s+paused`));
    expect((await run("--json", "list", "--state", "paused")).json().map((t: { id: string }) => t.id)).toContain(id);
    expect((await run("show", id)).stdout).toContain("condition:  the edition is stabilised");
    const updated = await run("--json", "update", id, "--name", "rust", "--email", "me@example.com");
    expect(updated.json().name).toBe("rust");
    expect(updated.json().notifications.map((n: { type: string }) => n.type).sort()).toEqual(["email", "webhook"]);
    expect((await run("resume", id)).stdout).toMatch(/^Resumed rust/);
    expect((await run("pause", id)).stdout).toMatch(/^Paused rust/);
    expect((await run("--json", "run", id)).json().task_id).toBe(id);
    const conflict = await run("run", id);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/Error \(409\)/);
    expect((await run("run", id, "--force")).code).toBe(0);
    // This server has no model configured: waiting ends with the execution's own error, exit 1.
    const waited = await run("run", id, "--force", "--wait");
    expect(waited.code).toBe(1);
    expect(waited.stdout).toMatch(/failed/);
    expect(waited.stderr).toMatch(/^Error: the check failed: .+/);
    expect((await run("--json", "logs", id, "--limit", "1")).json()).toHaveLength(1);
    expect((await run("findings", id)).stdout).toContain("no findings yet");
    expect((await run("publish", id)).stderr).toMatch(/username/i);
    await call("PATCH", "/api/v1/users/me/username", { auth: user.token, body: { username: `cli${Date.now().toString(36)}` } });
    expect((await run("publish", id)).stdout).toBe(`Public: ${server().url}/w/${id}\n`);
    expect((await call("GET", `/api/v1/public/tasks/id/${id}`)).status).toBe(200);
    expect((await run("unpublish", id)).stdout).toBe(`Private: ${id}\n`);
    expect((await call("GET", `/api/v1/public/tasks/id/${id}`)).status).toBe(404);
    expect((await run("--json", "fork", id, "--name", "copy")).json()).toMatchObject({ name: "copy", forked_from_task_id: id });
    expect((await run("--json", "sends", "--type", "webhook", "--watch", id)).json()).toEqual({ sends: [], total: 0 });
    expect((await run("complete", id)).stderr).toBe("Error (400): Invalid state transition: paused -> completed\n");
    expect((await run("resume", id)).code).toBe(0);
    expect((await run("complete", id)).stdout).toMatch(/^Completed rust/);
    expect((await run("keys", "list")).stdout).toContain(user.keyId);
    expect((await run("delete", id, "--yes")).stdout).toBe(`Deleted ${id}\n`);
    expect((await run("show", id))).toMatchObject({ code: 1, stderr: "Error (404): Task not found\n" });
  });

  it("usage errors exit 2; a revoked key exits 1 with a clear message", async () => {
    expect((await run("create")).code).toBe(2);
    expect((await run("list", "--state", "sleeping")).code).toBe(2);
    expect((await run("logs", "x", "--limit", "0")).code).toBe(2);
    expect((await run("delete", "00000000-0000-0000-0000-000000000000")).stderr).toMatch(/--yes/);
    expect((await run("frobnicate")).code).toBe(2);

    const u = await newApiKeyUser();
    expect((await call("DELETE", `/auth/api-keys/${u.keyId}`, { auth: u.token })).status).toBe(200);
    const revoked = await run("--key", u.apiKey, "--url", server().url, "list");
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toContain("Error (401): Invalid API key");
    expect(revoked.stderr).toContain("watchctl login");
  });

  it("keys create through a dashboard-synced developer account", async () => {
    const dev = await newUser("developer");
    // A session token is not an API key, but the CLI passes any bearer credential through.
    const created = await run("--key", dev.token, "--url", server().url, "--json", "keys", "create", "ci");
    expect(created.code).toBe(0);
    const { key, key_info } = created.json();
    expect((await run("--key", key, "--url", server().url, "whoami")).stdout).toContain(dev.email);
    expect((await run("--key", key, "--url", server().url, "keys", "revoke", key_info.id)).stdout).toBe(`Revoked ${key_info.id}\n`);
  });
});

describe("NOAUTH mode and 429 retries (a development server)", () => {
  let dev: RunningServer;
  beforeAll(async () => {
    dev = await startServer({ SERVICE_NOAUTH: "1", RATE_LIMIT_WINDOW_MS: "2000", RATE_LIMIT_USER_PER_MIN: "3" });
  });
  afterAll(async () => {
    await dev?.stop();
  });

  it("SERVICE_NOAUTH=1 sends no credentials and acts as the test user (SDK and the watchctl bin)", async () => {
    const seen: (string | null)[] = [];
    const sdk = createClient({
      baseUrl: dev.url,
      noauth: true,
      apiKey: "sk_ignored",
      fetch: (input, init) => {
        seen.push(new Request(input, init).headers.get("authorization"));
        return fetch(input, init);
      },
    });
    expect((await sdk.me()).email).toBe("test@localhost");
    expect(seen).toEqual([null]);

    const bin = spawnSync(process.execPath, [path.join(root, "scripts/watchctl.mjs"), "--json", "whoami"], {
      env: { PATH: process.env.PATH, HOME: os.tmpdir(), SERVICE_NOAUTH: "1", SERVICE_URL: dev.url } as unknown as NodeJS.ProcessEnv,
      encoding: "utf8",
    });
    expect(bin.status).toBe(0);
    expect(JSON.parse(bin.stdout).email).toBe("test@localhost");
  });

  it("retries a 429 after Retry-After; without retries it raises RateLimitError", async () => {
    await new Promise((r) => setTimeout(r, 2000 - (Date.now() % 2000) + 50));
    const patient = createClient({ baseUrl: dev.url, noauth: true, maxRetries: 3 });
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await patient.watches.create({ search_query: `burst ${i}`, state: "paused" }));
    expect(created).toHaveLength(5);

    await new Promise((r) => setTimeout(r, 2000 - (Date.now() % 2000) + 50));
    const impatient = createClient({ baseUrl: dev.url, noauth: true, maxRetries: 0 });
    const errors = [];
    for (let i = 0; i < 4; i++) errors.push(await impatient.watches.create({ search_query: `x${i}`, state: "paused" }).then(() => null, (e) => e));
    const limited = errors.find((e) => e !== null);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.retryAfter).toBeGreaterThan(0);
    expect(limited.detail).toMatch(/^Rate limit exceeded/);
  });
});
