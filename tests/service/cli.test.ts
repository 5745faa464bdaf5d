/**
 * watchctl (client/cli.ts) against the service, both in this process: every command, --json, exit codes, the saved
 * login. The bin itself (scripts/watchctl.mjs, a process of its own) is tested on the shared server in
 * tests/http/cli.test.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "@/client/cli";
import { withService } from "../helpers/service";
import { freePort, tempDir } from "../helpers/server";
import { waitFor } from "../helpers/wait";

// No model but in the last part: a run fails at once.
const app = withService({ AGENT_MODEL: undefined, AGENT_BASE_URL: undefined });
const { call, newApiKeyUser, newUser } = app;

type Run = { code: number | null; stdout: string; stderr: string; json: () => any };

/** What watchctl reads of its environment. */
const CLI_VARIABLES = ["SERVICE_URL", "SERVICE_API_KEY", "SERVICE_NOAUTH", "XDG_CONFIG_HOME", "HOME"];
let running: Promise<unknown> = Promise.resolve();

/**
 * Runs a watchctl command line in this process, one at a time: with only the given variables of the ones it reads
 * (HOME a temporary directory), its output captured; stdin is not a TTY (the test runner's is not).
 */
function watchctl(env: Record<string, string>, ...args: string[]): Promise<Run> {
  const run = running.then(async () => {
    const saved = CLI_VARIABLES.map((name) => [name, process.env[name]] as const);
    for (const name of CLI_VARIABLES) delete process.env[name];
    Object.assign(process.env, { HOME: os.tmpdir(), ...env });
    let stdout = "";
    let stderr = "";
    const out = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((stdout += String(s)), true));
    const err = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((stderr += String(s)), true));
    try {
      const code = await main(args);
      return { code, stdout, stderr, json: () => JSON.parse(stdout) };
    } finally {
      out.mockRestore();
      err.mockRestore();
      for (const [name, value] of saved)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });
  running = run.catch(() => undefined);
  return run;
}

const configDir = () => tempDir("watchctl-");

describe("watchctl with an API key", () => {
  let user: Awaited<ReturnType<typeof newApiKeyUser>>;
  let xdg: string;
  let cli: (...args: string[]) => Promise<Run>;
  let login: Run;
  beforeAll(async () => {
    user = await newApiKeyUser();
    xdg = configDir();
    cli = (...args) => watchctl({ XDG_CONFIG_HOME: xdg }, ...args);
    login = await cli("login", "--key", user.apiKey, "--url", app.url);
  });

  it("login saves key and URL readable only by the user; every watch command works from it", async () => {
    expect(login).toMatchObject({ code: 0, stderr: "" });
    expect(login.stdout).toContain(`Logged in as ${user.email}`);
    const file = path.join(xdg, "watchctl", "config.json");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ url: app.url, apiKey: user.apiKey });
    expect((await cli("whoami")).stdout).toBe(`${user.email}  ${user.id}\n`);

    const created = await cli(
      "--json",
      "create",
      "Rust 2027 edition",
      "--when",
      "the edition is stabilised",
      "--name",
      "rust",
      "--webhook",
      "https://example.com/h",
      "--paused",
    );
    expect(created.code).toBe(0);
    const task = created.json();
    expect(task).toMatchObject({
      search_query: "Rust 2027 edition",
      condition_description: "the edition is stabilised",
      name: "rust",
      state: "paused",
    });
    const id = task.id as string;

    const list = await cli("list");
    expect(list.stdout).toMatch(/^ID\s+NAME\s+STATE\s+LAST\s+NEXT_RUN\n/);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+rust\\s+paused\\s+never run`));
    expect((await cli("--json", "list", "--state", "paused")).json().map((t: { id: string }) => t.id)).toContain(id);
    expect((await cli("--json", "list", "--state", "active")).json()).toEqual([]);
    expect((await cli("show", id)).stdout).toContain("condition:  the edition is stabilised");

    const updated = (
      await cli(
        "--json",
        "update",
        id,
        "--name",
        "rust 2027",
        "--query",
        "Rust 2027",
        "--when",
        "it ships",
        "--email",
        user.email,
      )
    ).json();
    expect(updated).toMatchObject({ name: "rust 2027", search_query: "Rust 2027", condition_description: "it ships" });
    expect(updated.notifications.map((n: { type: string }) => n.type).sort()).toEqual(["email", "webhook"]);

    expect((await cli("resume", id)).stdout).toBe(`Resumed rust 2027 (${id})\n`);
    expect((await cli("pause", id)).stdout).toBe(`Paused rust 2027 (${id})\n`);
    expect(await cli("complete", id)).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "Error (400): Invalid state transition: paused -> completed\n",
    });
    expect((await cli("resume", id)).code).toBe(0);
    expect((await cli("complete", id)).stdout).toBe(`Completed rust 2027 (${id})\n`);

    expect((await cli("--json", "run", id)).json()).toMatchObject({ task_id: id, status: "pending" });
    expect((await cli("run", id, "--force")).stdout).toMatch(/^ID\s+STATUS\s+RESULT\s+STARTED\s+DETAIL\n\S+\s+pending/);
    // No model here: the forced check fails; two more, and the third failure in a row sends a notice (below).
    await waitFor(
      "the forced check",
      async () => (await cli("--json", "logs", id, "--limit", "1")).json()[0].status === "failed",
    );
    for (let i = 0; i < 2; i++) expect((await cli("run", id, "--wait")).code).toBe(1);
    expect((await cli("--json", "logs", id, "--limit", "1")).json()).toHaveLength(1);
    expect((await cli("logs", id)).stdout.trim().split("\n").length).toBeGreaterThanOrEqual(3);
    expect((await cli("findings", id)).stdout).toBe("(no findings yet)\n");
    expect((await cli("--json", "findings", id)).json()).toEqual([]);

    expect(await cli("publish", id)).toMatchObject({
      code: 1,
      stderr: "Error (400): You must set a username before making tasks public\n",
    });
    const username = `cli${Date.now().toString(36)}`;
    expect((await call("PATCH", "/api/v1/users/me/username", { auth: user.token, body: { username } })).status).toBe(
      200,
    );
    expect((await cli("whoami")).stdout).toBe(`${user.email} (@${username})  ${user.id}\n`);
    expect((await cli("publish", id)).stdout).toBe(`Public: ${app.url}/w/${id}\n`);
    expect((await call("GET", `/api/v1/public/tasks/id/${id}`)).status).toBe(200);
    expect((await cli("unpublish", id)).stdout).toBe(`Private: ${id}\n`);
    expect((await call("GET", `/api/v1/public/tasks/id/${id}`)).status).toBe(404);
    expect((await cli("--json", "publish", id)).json()).toEqual({ is_public: true });
    expect((await cli("--json", "fork", id, "--name", "copy")).json()).toMatchObject({
      name: "copy",
      state: "paused",
      forked_from_task_id: id,
    });
    // No findings (this server has no model): the failed checks said so once, by webhook.
    expect(
      (await cli("--json", "sends", "--type", "webhook", "--watch", id, "--event", "task.condition_met")).json(),
    ).toEqual({ sends: [], total: 0 });
    expect((await cli("sends", "--event", "task.condition_met")).stdout).toMatch(/0 in total\n$/);
    const failedNotices = await waitFor("the failure notices", async () => {
      const { sends } = (await cli("--json", "sends", "--watch", id)).json();
      return sends.length >= 2 && sends;
    });
    expect(
      failedNotices
        .map((s: { event: string; notification_type: string }) => `${s.event}:${s.notification_type}`)
        .sort(),
    ).toEqual(["task.run_failed:email", "task.run_failed:webhook"]);
    expect((await cli("keys", "list")).stdout).toMatch(new RegExp(`${user.keyId}\\s+test\\s+sk_\\S+\\s+yes`));

    expect(await cli("delete", id)).toMatchObject({
      code: 2,
      stderr: "watchctl: refusing to delete without --yes when not run in a terminal\n",
    });
    expect((await cli("delete", id, "--yes")).stdout).toBe(`Deleted ${id}\n`);
    expect(await cli("show", id)).toMatchObject({ code: 1, stderr: "Error (404): Task not found\n" });
  });

  it("--notify takes each new channel's Apprise URL or the service's own: saved as its config, its secrets shown redacted", async () => {
    const created = await cli(
      "--json",
      "create",
      "Gotify 3 release",
      "--paused",
      "--notify",
      "mmosts://chat.example.com/abcdefghijklmnopqrstuvwxyz?channel=alerts",
      "--notify",
      "https://chat.googleapis.com/v1/spaces/AAAA/messages?key=KEYsecret1&token=TOKENsecret2",
      "--notify",
      "matrixs://syt_secretAccessToken1@matrix.example.org/!RoomId:example.org",
      "--notify",
      "pover://uQiRzpo4DXghDmr9QzzfQu27cmVRsG@azGDORePK8gMaC0QOYAMyEEuzJnyUi",
      "--notify",
      "gotifys://push.example.com/AppTokenSecret9?priority=high",
      "--notify",
      "apprises://apprise.example.com/relay-key-secret?tags=phone",
    );
    expect(created).toMatchObject({ code: 0, stderr: "" });
    const byType = Object.fromEntries(
      (created.json().notifications as { type: string }[]).map(({ type, ...rest }) => [type, rest]),
    );
    delete byType.email;
    expect(byType).toEqual({
      mattermost: { url: "https://chat.example.com/…wxyz", channel: "alerts" },
      googlechat: { url: "https://chat.googleapis.com/…ret2" },
      matrix: { homeserver: "https://matrix.example.org", access_token: "…ken1", room: "!RoomId:example.org" },
      pushover: { token: "…nyUi", user: "…VRsG" },
      gotify: { url: "https://push.example.com/", token: "…ret9", priority: "high" },
      apprise: { url: "https://apprise.example.com/…cret", tags: "phone" },
    });
    const shown = (await cli("show", created.json().id)).stdout;
    for (const secret of [
      "abcdefghijklmnop",
      "KEYsecret1",
      "syt_secret",
      "uQiRzpo4",
      "azGDORe",
      "AppTokenSecret",
      "relay-key",
    ])
      expect(shown).not.toContain(secret);
    // A pasted t2bot URL is a webhook bridge, named as one; the URL is not repeated.
    const refused = await cli("create", "x", "--notify", "https://webhooks.t2bot.io/api/v1/matrix/hook/secretHookId");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Matrix webhook bridges (t2bot");
    expect(refused.stderr).not.toContain("secretHookId");
    // The account's export below recreates its watches elsewhere: this one's secrets are not in an export.
    expect((await cli("delete", created.json().id, "--yes")).code).toBe(0);
  });

  it("sets bounds, shows history and usage; export then apply recreates every watch, and applying again changes nothing", async () => {
    const created = (
      await cli(
        "--json",
        "create",
        "Go 1.30",
        "--name",
        "go",
        "--min-confidence",
        "0.8",
        "--min-sources",
        "2",
        "--check-at-most-every",
        "1h",
        "--check-at-least-every",
        "7d",
        "--paused",
      )
    ).json();
    expect(created).toMatchObject({
      min_confidence: 0.8,
      min_sources: 2,
      min_interval_minutes: 60,
      max_interval_minutes: 10080,
    });
    expect(await cli("update", created.id, "--check-at-most-every", "soon")).toMatchObject({
      code: 2,
      stderr: 'watchctl: expected a duration like 30m, 1h or 7d, got "soon"\n',
    });
    expect(await cli("update", created.id, "--min-confidence", "2")).toMatchObject({ code: 2 });
    await cli("update", created.id, "--min-sources", "3", "--name", "golang");
    const history = (await cli("--json", "history", created.id)).json();
    expect(history[0].changes).toEqual({ name: { from: "go", to: "golang" }, min_sources: { from: 2, to: 3 } });
    expect((await cli("history", created.id)).stdout).toContain('  name: "go" → "golang"');
    const usage = (await cli("--json", "usage")).json();
    expect(usage).toMatchObject({ runs_limit: 3000, active_tasks_limit: 50 });
    expect((await cli("usage")).stdout).toContain("runs            ");

    // The whole account as a file; applied to an empty account it recreates every watch.
    await cli("create", "Kotlin 3", "--email", user.email, "--webhook", "https://example.com/k");
    const file = path.join(xdg, "watches.yaml");
    const exported = await cli("export");
    expect(exported.stdout).toMatch(/^# Watches exported by watchctl/);
    fs.writeFileSync(file, exported.stdout);
    const other = await newApiKeyUser();
    await call("PATCH", "/api/v1/users/me/username", {
      auth: other.token,
      body: { username: `apply${Date.now().toString(36)}` },
    });
    const theirs = (...args: string[]) => cli("--key", other.apiKey, ...args);
    const dry = await theirs("apply", "-f", file, "--dry-run");
    expect(dry.stdout, dry.stderr).toMatch(/^\+ create "golang"\n/m);
    expect((await theirs("--json", "list")).json()).toEqual([]);
    const applied = await theirs("apply", "-f", file);
    expect(applied.stderr).not.toMatch(/Error/);
    expect(applied.code).toBe(0);
    const definitions = (json: { name: string }[]) =>
      json
        .map(
          ({
            name,
            search_query,
            condition_description,
            state,
            min_confidence,
            min_sources,
            min_interval_minutes,
            max_interval_minutes,
            notifications,
          }: any) => ({
            name,
            search_query,
            condition_description,
            state,
            min_confidence,
            min_sources,
            min_interval_minutes,
            max_interval_minutes,
            notifications,
          }),
        )
        .sort((a, b) => a.name.localeCompare(b.name));
    expect(definitions((await theirs("--json", "list")).json())).toEqual(
      definitions((await cli("--json", "list")).json()),
    );
    const again = await theirs("apply", "-f", file);
    expect(
      again.stdout
        .trim()
        .split("\n")
        .every((line) => line.startsWith("= unchanged")),
    ).toBe(true);
    fs.writeFileSync(
      file,
      exported.stdout
        .replace("name: golang", "name: golang\n    min_confidence: 0.9")
        .replace(/\n\s+min_confidence: 0\.8/, ""),
    );
    expect((await theirs("apply", "-f", file)).stdout).toMatch(/^~ update "golang": min_confidence$/m);
    fs.writeFileSync(file, "watches:\n  - name: x\n  - name: x\n");
    expect(await theirs("apply", "-f", file)).toMatchObject({ code: 2 });
  });

  it("settings shows and changes email settings; follow, following and unfollow another user's public watch", async () => {
    expect((await cli("--json", "settings")).json()).toEqual({
      timezone: "UTC",
      quiet_hours: null,
      email_digest: "off",
    });
    const changed = await cli(
      "settings",
      "--timezone",
      "Europe/Berlin",
      "--quiet-hours",
      "22:00-7:00",
      "--digest",
      "daily",
    );
    expect(changed).toMatchObject({
      code: 0,
      stdout: "time zone    Europe/Berlin\nquiet hours  22:00 to 07:00\ndigest       daily\n",
    });
    expect((await cli("--json", "settings", "--quiet-hours", "off")).json()).toMatchObject({
      quiet_hours: null,
      email_digest: "daily",
    });
    expect(await cli("settings", "--quiet-hours", "late")).toMatchObject({
      code: 2,
      stderr: 'watchctl: expected quiet hours like 22:00-07:00, or off; got "late"\n',
    });
    expect((await cli("settings", "--timezone", "Mars/Olympus")).code).toBe(1);

    const owner = await newApiKeyUser();
    await call("PATCH", "/api/v1/users/me/username", {
      auth: owner.token,
      body: { username: `owner${Date.now().toString(36)}` },
    });
    const theirs = (
      await call("POST", "/api/v1/tasks", {
        auth: owner.token,
        body: { search_query: "Zig 1.0", name: "Zig 1.0", state: "paused" },
      })
    ).body;
    expect(await cli("follow", theirs.id, "--webhook", "https://example.com/f")).toMatchObject({
      code: 1,
      stderr: "Error (404): Task not found\n",
    });
    await call("PATCH", `/api/v1/tasks/${theirs.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    expect(await cli("follow", theirs.id)).toMatchObject({ code: 2 });
    expect((await cli("follow", theirs.id, "--webhook", "https://example.com/f")).stdout).toBe(
      `Following ${theirs.id}: webhook POST https://example.com/f\n`,
    );
    expect((await cli("following")).stdout).toMatch(new RegExp(`${theirs.id}\\s+Zig 1.0\\s+watching\\s+webhook`));
    expect((await cli("unfollow", theirs.id)).stdout).toBe(`No longer following ${theirs.id}\n`);
    expect((await cli("--json", "following")).json()).toEqual([]);
  });

  it("credentials: flags over SERVICE_* variables over the saved login", async () => {
    const withEnv = (env: Record<string, string>, ...args: string[]) =>
      watchctl({ XDG_CONFIG_HOME: xdg, ...env }, ...args);
    const bogusKey = "sk_" + "x".repeat(32);
    const deadUrl = `http://127.0.0.1:${await freePort()}`;
    expect((await withEnv({ SERVICE_API_KEY: bogusKey }, "whoami")).stderr).toMatch(
      /^Error \(401\): Invalid API key\n/,
    );
    expect((await withEnv({ SERVICE_API_KEY: bogusKey }, "--key", user.apiKey, "whoami")).code).toBe(0);
    expect(await withEnv({ SERVICE_URL: deadUrl }, "whoami")).toMatchObject({
      code: 1,
      stderr: "Error: fetch failed (ECONNREFUSED)\n",
    });
    expect((await withEnv({ SERVICE_URL: deadUrl }, "--url", app.url, "whoami")).code).toBe(0);
  });

  it("keys create, use and revoke; a revoked key exits 1 with a clear message", async () => {
    const dev = await newUser("developer");
    // A dashboard session token is accepted wherever a key is; a new account has no key yet.
    const created = await cli("--key", dev.token, "--json", "keys", "create", "ci");
    expect(created.code).toBe(0);
    const { key, key_info } = created.json();
    expect((await cli("--key", key, "whoami")).stdout).toContain(dev.email);
    expect((await cli("--key", key, "keys", "revoke", key_info.id)).stdout).toBe(`Revoked ${key_info.id}\n`);
    const revoked = await cli("--key", key, "list");
    expect(revoked).toMatchObject({ code: 1, stdout: "" });
    expect(revoked.stderr).toBe(
      "Error (401): Invalid API key\nCheck your API key: `watchctl login --key <key>`, SERVICE_API_KEY, or SERVICE_NOAUTH=1 for a local server.\n",
    );
  });

  it("list sorts, narrows by words and state; test-notify tries channels before any watch has them", async () => {
    for (const [name, state] of [
      ["Kestrel sighting", "paused"],
      ["Albatross sighting", "paused"],
      ["Kestrel nest", "active"],
    ])
      expect(
        (await call("POST", "/api/v1/tasks", { auth: user.apiKey, body: { name, search_query: name, state } })).status,
      ).toBe(200);
    const names = async (...args: string[]) =>
      (await cli("--json", "list", ...args)).json().map((t: { name: string }) => t.name);
    expect(await names("-q", "sighting", "--sort", "name")).toEqual(["Albatross sighting", "Kestrel sighting"]);
    expect(await names("--query", "kestrel", "--state", "paused")).toEqual(["Kestrel sighting"]);
    const page = await cli("list", "-q", "kestrel", "--sort", "name", "--limit", "1");
    expect(page.stdout).toMatch(/Kestrel nest[\s\S]*1–1 of 2\n$/);

    // An Apprise URL, as --notify takes it (ntfy:// is plain http: allowed here, as every private address is).
    const url = `ntfy://${new URL(app.stubs.receiver.url).host}/cli-topic`;
    const hook = `${app.stubs.receiver.url}/cli-test-hook`;
    const sent = await cli("test-notify", url, "--webhook", hook, "--name", "Kestrels");
    expect(sent).toMatchObject({ code: 0, stdout: "webhook: sent\nntfy: sent\n" });
    expect(JSON.parse(app.stubs.receiver.to("/cli-test-hook").at(-1)!.body).data.task.name).toBe("Kestrels");
    app.stubs.receiver.reply("/cli-test-refused", () => ({ status: 403, text: "forbidden" }));
    const refused = await cli("--json", "test-notify", "--webhook", `${app.stubs.receiver.url}/cli-test-refused`);
    expect(refused.code).toBe(1);
    expect(refused.json()).toEqual([
      { type: "webhook", status: "failed", failure: "refused", error_message: "HTTP 403" },
    ]);
    expect((await cli("test-notify")).stderr).toBe("watchctl: give a channel: a URL, --email or --webhook\n");
    expect((await cli("test-notify", "slack://only-one-token")).code).toBe(2);
  });

  it("usage errors exit 2 and say what is wrong", async () => {
    const runs = await Promise.all([
      cli("create"),
      cli("list", "--state", "sleeping"),
      cli("logs", "x", "--limit", "0"),
      cli("update", "x"),
      cli("frobnicate"),
      watchctl({ XDG_CONFIG_HOME: configDir() }, "login"),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(runs.map((r) => r.stderr.split("\n")[0])).toEqual([
      "error: missing required argument 'query'",
      "error: option '--state <state>' argument 'sleeping' is invalid. Allowed choices are active, paused, completed, met, watching, held, failing.",
      'watchctl: expected a positive whole number, got "0"',
      "watchctl: nothing to change: give --name, --query, --when, --email, --webhook, --notify or a bound",
      "error: unknown command 'frobnicate'",
      "watchctl: no key given: pass --key <key> (or run in a terminal to be prompted)",
    ]);
  });
});

describe("watchctl against a development server (SERVICE_NOAUTH=1) with a stub model", () => {
  const dev = { url: app.url };
  beforeAll(() => {
    app.setEnv({ ...app.stubs.servicesEnv(), SERVICE_NOAUTH: "1" });
    // The model answers after 2 s, so a second "run" finds the first one still open.
    app.stubs.model.delay(2000);
  });
  afterAll(() => {
    app.stubs.model.delay(0);
    app.setEnv({});
  });

  it("creates a watch without credentials, runs it (409 while a check is open), waits for it and shows the finding", async () => {
    // A saved login for some deployment must not be used in development mode.
    const xdg = configDir();
    fs.mkdirSync(path.join(xdg, "watchctl"));
    fs.writeFileSync(
      path.join(xdg, "watchctl", "config.json"),
      JSON.stringify({ url: "http://127.0.0.1:9", apiKey: "sk_saved" }),
    );
    const cli = (...args: string[]) =>
      watchctl({ XDG_CONFIG_HOME: xdg, SERVICE_NOAUTH: "1", SERVICE_URL: dev.url }, ...args);

    expect((await cli("--json", "whoami")).json()).toMatchObject({ email: "test@localhost" });
    const created = await cli("create", "Postgres 19 beta", "--when", "a beta release is announced", "--run");
    expect(created.code).toBe(0);
    const id = /^Created (\S+)\n/.exec(created.stdout)![1]!;
    expect(created.stdout).toContain("condition:  a beta release is announced");

    expect(await cli("run", id)).toMatchObject({
      code: 1,
      stderr: "Error (409): Task is already running or pending. Use force=true to override.\n",
    });
    const waited = await cli("run", id, "--force", "--wait");
    expect(waited).toMatchObject({ code: 0, stderr: "" });
    expect(waited.stdout).toMatch(/\ssuccess\s+met\s.*PostgreSQL 19 Beta 1 was released today\./);
    expect((await cli("findings", id)).stdout).toMatch(
      /^PostgreSQL 19 Beta 1 is out\n {2}notified · first found \S+ · confirmed \d+×[^\n]*\n {2}PostgreSQL 19 Beta 1 was released today\./,
    );
    expect((await cli("show", id)).stdout).toMatch(/last:\s+met at/);
    expect(await cli("send", id, "pg19-beta1")).toMatchObject({
      code: 1,
      stderr: "Error (409): This finding was sent already\n",
    });
  });

  it("previews what the agent would answer, saving nothing", async () => {
    const cli = (...args: string[]) =>
      watchctl({ XDG_CONFIG_HOME: configDir(), SERVICE_NOAUTH: "1", SERVICE_URL: dev.url }, ...args);
    const before = (await cli("--json", "list")).json().length;
    const preview = await cli("preview", "Postgres 19 beta", "--when", "a beta release is announced");
    expect(preview).toMatchObject({ code: 0, stderr: "" });
    expect(preview.stdout).toMatch(/^MET, confidence 0\.9\n\nPostgreSQL 19 Beta 1 was released today\./);
    expect(preview.stdout).toContain("https://www.postgresql.org/about/news/pg19-beta1/");
    expect((await cli("preview", "Postgres 19 beta", "--min-sources", "2")).stdout).toMatch(/^MET \(would be held: /);
    expect((await cli("--json", "list")).json()).toHaveLength(before);
  });
});
