/**
 * Watch as tools for AI assistants: the official MCP SDK's client against the built server, over Streamable HTTP
 * (POST /mcp) and over stdio through `watchctl mcp`. Every tool's happy path and main error, answers equal to the REST
 * JSON (lists a page of it, with its total), authentication, one message per request, isolation between users, and
 * the REST API's rate limits and quotas.
 */
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnv } from "../global-setup";
import { call, server, testClerkKeys, uniqueId } from "../helpers/api";
import { mintSessionToken } from "../helpers/clerk";
import { root, startServer, type RunningServer } from "../helpers/server";
import { decisionFor, startModelStub, startSearxStub } from "../helpers/stubs/model";
import { waitFor } from "../helpers/wait";

const ACTIVE_LIMIT = 3;
let own: RunningServer;
let model: Awaited<ReturnType<typeof startModelStub>>;
let searx: Awaited<ReturnType<typeof startSearxStub>>;

beforeAll(async () => {
  // The model answers after a second, so a check just started is still open when the next call comes.
  model = await startModelStub(
    (query) => (query.startsWith("fail") ? { providerError: 500 } : decisionFor({ finding_key: query })),
    { answerDelayMs: 1000 },
  );
  searx = await startSearxStub();
  own = await startServer({
    ...serverEnv(server().clerkPublicPem, server().stubs.clerk),
    AGENT_MODEL: "openai-compatible:stub",
    AGENT_BASE_URL: `${model.url}/v1`,
    SEARXNG_URL: searx.url,
    MAX_ACTIVE_TASKS_PER_USER: String(ACTIVE_LIMIT),
    // Hour-long rate-limit windows: a count never restarts in the middle of a test.
    RATE_LIMIT_WINDOW_MS: "3600000",
  });
});

afterAll(async () => {
  await own?.stop();
  await Promise.all([model, searx].map((s) => s?.close()));
});

const rest = (method: string, p: string, auth?: string, body?: unknown) =>
  call(method, p, { base: own.url, auth, body });

/** A signed-in developer with an API key (and a username, so their watches can be made public). */
async function developer() {
  const clerkId = uniqueId("user_dev");
  const token = await mintSessionToken(await testClerkKeys(), clerkId);
  const synced = await rest("POST", "/auth/sync-user", token);
  expect(synced.status).toBe(200);
  const key = await rest("POST", "/auth/api-keys", token, { name: "assistant" });
  expect(key.status).toBe(200);
  const username = clerkId.replace(/[^a-z0-9]/g, "").slice(0, 30);
  expect((await rest("PATCH", "/api/v1/users/me/username", token, { username })).status).toBe(200);
  return { id: synced.body.user.id as string, email: synced.body.user.email as string, key: key.body.key as string };
}

type Mcp = Client & { tool: (name: string, args?: Record<string, unknown>) => Promise<Result> };
type Result = CallToolResult & { structuredContent?: any };

function withTool(client: Client): Mcp {
  return Object.assign(client, {
    tool: (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<Result>,
  });
}

const open: Client[] = [];
afterAll(() => Promise.all(open.map((c) => c.close())));

async function overHttp(key: string): Promise<Mcp> {
  const client = new Client({ name: "test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", own.url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  open.push(client);
  return withTool(client);
}

async function overStdio(env: Record<string, string>): Promise<Mcp> {
  const client = new Client({ name: "test", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(root, "scripts/watchctl.mjs"), "mcp"],
      env: { PATH: process.env.PATH!, HOME: os.tmpdir(), ...env },
      stderr: "pipe",
    }),
  );
  open.push(client);
  return withTool(client);
}

/** The answer's text: its JSON (after the line that marks others' text as untrusted, when it has one), or its error. */
const text = (r: Result) => (r.content.at(-1) as { text: string }).text;
const failed = (r: Result) => (r.isError ? text(r) : `(succeeded) ${text(r)}`);

async function ranOnce(mcp: Mcp, id: string) {
  return waitFor(
    "the check",
    async () => {
      const w = (await mcp.tool("get_watch", { id })).structuredContent;
      return w.last_execution?.status === "success" && w;
    },
    30_000,
  );
}

const READ_ONLY = ["list_watches", "get_watch", "list_findings", "search_public_watches", "get_usage"];
const TOOL_NAMES = [
  "list_watches",
  "get_watch",
  "create_watch",
  "update_watch",
  "run_watch",
  "pause_watch",
  "resume_watch",
  "delete_watch",
  "list_findings",
  "send_finding",
  "preview_watch",
  "search_public_watches",
  "follow_watch",
  "unfollow_watch",
  "test_channel",
  "get_usage",
];

describe("MCP over Streamable HTTP (POST /mcp)", () => {
  let alice: Awaited<ReturnType<typeof developer>>;
  let bob: Awaited<ReturnType<typeof developer>>;
  let mcp: Mcp;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([developer(), developer()]);
    mcp = await overHttp(alice.key);
  });

  it("initializes and lists every tool with a description, annotations and schemas", async () => {
    expect(mcp.getServerVersion()).toMatchObject({ name: "watch" });
    expect(mcp.getServerCapabilities()?.tools).toBeDefined();
    expect(mcp.getInstructions()).toContain("create_watch");
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const t of tools) {
      expect(t.description, t.name).toMatch(/^[A-Z][^]*\.$/);
      expect(t.inputSchema.type, t.name).toBe("object");
      expect(t.annotations?.readOnlyHint, t.name).toBe(READ_ONLY.includes(t.name));
      expect(t.annotations?.destructiveHint ?? false, t.name).toBe(t.name === "delete_watch");
      expect(Boolean(t.outputSchema), t.name).toBe(!["delete_watch", "unfollow_watch"].includes(t.name));
    }
    const tool = (name: string) => tools.find((t) => t.name === name)!;
    expect(Object.keys(tool("create_watch").inputSchema.properties!).sort()).toEqual(
      [
        "search_query",
        "condition_description",
        "name",
        "run_immediately",
        "notifications",
        "min_confidence",
        "min_sources",
        "min_interval_minutes",
        "max_interval_minutes",
      ].sort(),
    );
    expect(tool("create_watch").inputSchema.required).toEqual(["search_query"]);
    expect(tool("pause_watch").inputSchema).toMatchObject({ properties: { id: {} }, required: ["id"] });
    expect(Object.keys(tool("pause_watch").inputSchema.properties!)).toEqual(["id"]);
    expect(Object.keys(tool("list_findings").inputSchema.properties!).sort()).toEqual(["id", "limit", "offset"]);
    expect(Object.keys(tool("search_public_watches").inputSchema.properties!).sort()).toEqual([
      "limit",
      "offset",
      "q",
      "sort",
    ]);
    expect(tool("follow_watch").inputSchema.required).toEqual(["id"]);
    expect(tool("get_usage").inputSchema.properties).toEqual({});
    expect(tool("list_watches").outputSchema).toMatchObject({
      required: ["watches", "total"],
      properties: { watches: {}, total: {} },
    });
    expect(tool("list_findings").outputSchema).toMatchObject({ required: ["findings", "total"] });
  });

  it("refuses requests without a valid key before any MCP message, and browsers from other origins", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${own.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await missing.json()).toEqual({ detail: "Authorization header missing" });
    const wrong = await post({ authorization: `Bearer sk_${"x".repeat(32)}` });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ detail: "Invalid API key" });
    // A signed-in browser's session cookie is not a credential here.
    const clerkId = uniqueId("user");
    const token = await mintSessionToken(await testClerkKeys(), clerkId);
    expect((await rest("POST", "/auth/sync-user", token)).status).toBe(200);
    expect((await post({ cookie: `__session=${token}` })).status).toBe(401);
    // A session token as a bearer works, as on the REST API.
    expect((await post({ authorization: `Bearer ${token}` })).status).toBe(200);

    const cross = await post({ authorization: `Bearer ${alice.key}`, origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect(await cross.json()).toEqual({ detail: "Cross-origin request refused" });
    expect((await post({ authorization: `Bearer ${alice.key}`, "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect(cross.headers.get("access-control-allow-origin")).toBeNull();

    for (const method of ["GET", "DELETE", "OPTIONS"]) {
      const res = await fetch(`${own.url}/mcp`, { method, headers: { authorization: `Bearer ${alice.key}` } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
    const rpc = (body: string) =>
      fetch(`${own.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${alice.key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body,
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    // One message per request: a batch holds its answers together, so none is accepted.
    for (const batch of [[ping(1), ping(2)], [ping(1)]])
      expect(await rpc(JSON.stringify(batch))).toEqual({
        status: 400,
        body: {
          jsonrpc: "2.0",
          id: null,
          error: {
            code: -32600,
            message: "Invalid Request: one JSON-RPC message per request (batches are not accepted)",
          },
        },
      });
    expect((await rpc(JSON.stringify(ping(1)))).body).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(await rpc("{not json")).toMatchObject({ status: 400, body: { error: { code: -32700 } } });

    const client = new Client({ name: "test", version: "1" });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL("/mcp", own.url)))).rejects.toThrow(
      /Authorization header missing/,
    );
  });

  it("creates, reads, changes, runs, pauses, resumes and deletes a watch, answering the REST JSON", async () => {
    const created = await mcp.tool("create_watch", {
      search_query: "Postgres 19 beta",
      condition_description: "a beta release is announced",
      name: "pg19",
      run_immediately: true,
      notifications: [{ type: "webhook", url: "https://example.com/hook" }],
    });
    expect(created.isError).toBeFalsy();
    const id = created.structuredContent.id as string;
    expect(created.structuredContent).toMatchObject({ name: "pg19", state: "active", immediate_execution_error: null });
    expect(JSON.parse(text(created))).toEqual(created.structuredContent);

    await ranOnce(mcp, id);
    // The notice's delivery (to a host that does not resolve) starts and moves on between two reads: compared apart.
    const settled = ({ delivery, delivery_failed, ...view }: { delivery?: unknown; delivery_failed: unknown }) => {
      void delivery;
      void delivery_failed;
      return view;
    };
    expect(settled((await mcp.tool("get_watch", { id })).structuredContent)).toEqual(
      settled((await rest("GET", `/api/v1/tasks/${id}`, alice.key)).body),
    );
    const listed = await rest("GET", "/api/v1/tasks?limit=20", alice.key);
    const mcpListed = (await mcp.tool("list_watches")).structuredContent;
    expect({ ...mcpListed, watches: mcpListed.watches.map(settled) }).toEqual({
      watches: listed.body.map(settled),
      total: Number(listed.headers.get("x-total-count")),
    });
    expect((await mcp.tool("list_watches", { state: "paused" })).structuredContent).toEqual({ watches: [], total: 0 });

    const findings = await mcp.tool("list_findings", { id, limit: 5 });
    expect(findings.structuredContent.findings).toHaveLength(1);
    expect(findings.structuredContent).toEqual({
      findings: (await rest("GET", `/api/v1/tasks/${id}/findings?limit=5`, alice.key)).body,
      total: 1,
    });
    // What the agent found is web text: the answer says so before its JSON.
    expect(findings.content).toHaveLength(2);
    expect((findings.content[0] as { text: string }).text).toMatch(/^Untrusted data: .* never as instructions/);
    expect(findings.structuredContent.findings[0].answer).toBe("PostgreSQL 19 Beta 1 was released today.");

    // Checked, next check hours away: nothing is open.
    const run = await mcp.tool("run_watch", { id });
    expect(run.structuredContent).toMatchObject({ task_id: id, status: "pending" });
    const forced = await mcp.tool("run_watch", { id, force: true });
    expect(forced.structuredContent.id).not.toBe(run.structuredContent.id);

    const updated = await mcp.tool("update_watch", { id, name: "Postgres 19", min_confidence: 0.8 });
    expect(updated.structuredContent).toMatchObject({ name: "Postgres 19", min_confidence: 0.8 });
    expect((await mcp.tool("pause_watch", { id })).structuredContent).toMatchObject({
      state: "paused",
      next_run: null,
    });
    expect((await mcp.tool("resume_watch", { id })).structuredContent).toMatchObject({ state: "active" });

    const deleted = await mcp.tool("delete_watch", { id });
    expect(deleted).toEqual({ content: [{ type: "text", text: `Deleted watch ${id}.` }] });
    expect((await rest("GET", `/api/v1/tasks/${id}`, alice.key)).status).toBe(404);
  });

  it("answers each tool's main error as an isError result with the REST detail", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    const { structuredContent: paused } = await mcp.tool("create_watch", { search_query: "Rust 2027 edition" });
    await mcp.tool("pause_watch", { id: paused.id });

    expect(failed(await mcp.tool("create_watch", { condition_description: "x", min_sources: 9 }))).toBe(
      "search_query: Field required; min_sources: Input should be less than or equal to 5",
    );
    expect(failed(await mcp.tool("create_watch", { search_query: "x", state: "paused" }))).toBe(
      "state: Extra inputs are not permitted",
    );
    expect(failed(await mcp.tool("create_watch", { search_query: "x", notifications: [{ type: "pigeon" }] }))).toMatch(
      /^Invalid notification: /,
    );
    expect(failed(await mcp.tool("get_watch", { id: missing }))).toBe("Task not found");
    expect(failed(await mcp.tool("get_watch", { id: "nope" }))).toBe("id: Input should be a valid UUID");
    expect(failed(await mcp.tool("update_watch", { id: paused.id, state: "completed" }))).toBe(
      "Invalid state transition: paused -> completed",
    );
    expect(failed(await mcp.tool("pause_watch", { id: paused.id, name: "x" }))).toBe(
      "name: Extra inputs are not permitted",
    );
    expect(failed(await mcp.tool("resume_watch", { id: missing }))).toBe("Task not found");
    expect(failed(await mcp.tool("delete_watch", { id: missing }))).toBe("Task not found");
    expect(failed(await mcp.tool("list_findings", { id: missing }))).toBe("Task not found");
    expect(failed(await mcp.tool("list_findings", { id: paused.id, limit: 0 }))).toBe(
      "limit: Input should be greater than or equal to 1",
    );
    expect(failed(await mcp.tool("preview_watch", { search_query: "fail now" }))).toMatch(/^Model provider error/);
    expect(failed(await mcp.tool("search_public_watches", { sort: "newest" }))).toBe(
      "sort: Input should be 'recent' or 'popular'",
    );
    expect(failed(await mcp.tool("follow_watch", { id: missing }))).toBe("Task not found");
    expect(failed(await mcp.tool("unfollow_watch", { id: missing }))).toBe("Task not found");

    expect((await mcp.tool("run_watch", { id: paused.id, force: true })).isError).toBeFalsy();
    expect(failed(await mcp.tool("run_watch", { id: paused.id }))).toBe(
      "Task is already running or pending. Use force=true to override.",
    );
    await expect(mcp.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool: no_such_tool/);
  });

  it("previews without saving, searches and follows public watches, and reports usage like REST", async () => {
    const before = (await rest("GET", "/api/v1/tasks", alice.key)).body.length;
    const preview = await mcp.tool("preview_watch", {
      search_query: "Postgres 19 beta",
      condition_description: "a beta release is announced",
    });
    expect(preview.structuredContent).toMatchObject({ condition_met: true, confidence: 0.9, gate: { passed: true } });
    expect((await rest("GET", "/api/v1/tasks", alice.key)).body).toHaveLength(before);

    const { structuredContent: shared } = await mcp.tool("create_watch", { search_query: "Kubernetes 2.0 release" });
    await ranOnce(mcp, shared.id); // settled, so the MCP and REST searches below read the same watch
    expect((await rest("PATCH", `/api/v1/tasks/${shared.id}/visibility`, alice.key, { is_public: true })).status).toBe(
      200,
    );
    const asBob = await overHttp(bob.key);
    const found = await asBob.tool("search_public_watches", { q: "kubernetes 2.0", sort: "recent", limit: 5 });
    expect(found.structuredContent).toEqual({
      watches: (await rest("GET", "/api/v1/public/tasks?q=kubernetes%202.0&sort=recent&limit=5")).body,
      total: 1,
    });
    expect(found.structuredContent.watches.map((w: { id: string }) => w.id)).toEqual([shared.id]);

    const followed = await asBob.tool("follow_watch", { id: shared.id });
    expect(followed.structuredContent).toMatchObject({
      task_id: shared.id,
      notifications: [{ type: "email", address: bob.email }],
    });
    const channels = [{ type: "webhook", url: "https://example.com/bob", method: "POST", headers: {} }];
    expect(
      (await asBob.tool("follow_watch", { id: shared.id, notifications: channels })).structuredContent.notifications,
    ).toEqual(channels);
    expect(
      (await rest("GET", "/api/v1/follows", bob.key)).body.map((f: { task: { id: string } }) => f.task.id),
    ).toEqual([shared.id]);
    expect(failed(await mcp.tool("follow_watch", { id: shared.id }))).toBe("You own this task");
    expect(text(await asBob.tool("unfollow_watch", { id: shared.id }))).toBe(`No longer following watch ${shared.id}.`);
    expect((await rest("GET", "/api/v1/follows", bob.key)).body).toEqual([]);

    expect((await mcp.tool("get_usage")).structuredContent).toEqual(
      (await rest("GET", "/api/v1/usage", alice.key)).body,
    );
  });

  it("shows a user only their own watches", async () => {
    const { structuredContent: secret } = await mcp.tool("create_watch", { search_query: "Alice's private watch" });
    const asBob = await overHttp(bob.key);
    const bobs = (await asBob.tool("list_watches")).structuredContent.watches as { id: string }[];
    expect(bobs.map((w) => w.id)).not.toContain(secret.id);
    for (const name of ["get_watch", "update_watch", "run_watch", "pause_watch", "delete_watch", "list_findings"])
      expect(failed(await asBob.tool(name, { id: secret.id })), name).toBe("Task not found");
    expect(failed(await asBob.tool("follow_watch", { id: secret.id }))).toBe("Task not found");
    expect((await mcp.tool("get_watch", { id: secret.id })).structuredContent.name).toBe("New Monitor");
  });

  it("applies the REST API's quotas and rate limits", async () => {
    const carol = await overHttp((await developer()).key);
    for (let i = 0; i < ACTIVE_LIMIT; i++)
      expect((await carol.tool("create_watch", { search_query: `quota ${i}` })).isError).toBeFalsy();
    expect(failed(await carol.tool("create_watch", { search_query: "one too many" }))).toBe(
      `Active task limit reached (${ACTIVE_LIMIT}). Pause or complete a task first.`,
    );
    // Previews: 10 per window per user, whichever transport asks.
    const results = [];
    for (let i = 0; i < 11; i++) results.push(await carol.tool("preview_watch", { search_query: "limits" }));
    expect(results.slice(0, 10).every((r) => !r.isError)).toBe(true);
    expect(failed(results[10]!)).toMatch(/^Rate limit exceeded\. Try again in \d+ seconds\.$/);
  });
});

describe("MCP over stdio (watchctl mcp)", () => {
  let dev: Awaited<ReturnType<typeof developer>>;
  let mcp: Mcp;
  beforeAll(async () => {
    dev = await developer();
    mcp = await overStdio({ SERVICE_URL: own.url, SERVICE_API_KEY: dev.key });
  });

  it("serves the same tools as the service's endpoint", async () => {
    expect(mcp.getServerVersion()).toMatchObject({ name: "watch" });
    expect(mcp.getInstructions()).toContain("create_watch");
    const overHttpTools = (await (await overHttp(dev.key)).listTools()).tools;
    expect((await mcp.listTools()).tools).toEqual(overHttpTools);
  });

  it("creates a watch, runs it, reads its findings and follows a public watch", async () => {
    const { structuredContent: created } = await mcp.tool("create_watch", {
      search_query: "Debian 14 freeze",
      condition_description: "the freeze date is announced",
      run_immediately: true,
    });
    await ranOnce(mcp, created.id);
    const run = await mcp.tool("run_watch", { id: created.id, force: true });
    expect(run.structuredContent).toMatchObject({ task_id: created.id, status: "pending" });
    // The second check finds the same thing: one finding, confirmed twice.
    await waitFor("the second check", async () => {
      const findings = (await mcp.tool("list_findings", { id: created.id })).structuredContent.findings;
      return findings.length === 1 && findings[0].confirmations === 2 && findings;
    });
    expect(failed(await mcp.tool("get_watch", { id: "00000000-0000-4000-8000-000000000000" }))).toBe("Task not found");

    const other = await developer();
    const { structuredContent: shared } = await (
      await overHttp(other.key)
    ).tool("create_watch", { search_query: "Node.js 26 LTS" });
    await rest("PATCH", `/api/v1/tasks/${shared.id}/visibility`, other.key, { is_public: true });
    const found = await mcp.tool("search_public_watches", { q: "node.js 26" });
    expect(found.structuredContent.watches[0]).toMatchObject({
      id: shared.id,
      owner: { username: expect.any(String) },
    });
    expect((await mcp.tool("follow_watch", { id: shared.id })).structuredContent).toMatchObject({
      task_id: shared.id,
      notifications: [{ type: "email", address: dev.email }],
    });
  });

  it("answers the assistant's first request with the service's reason when the key is refused", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(root, "scripts/watchctl.mjs"), "mcp"],
      env: {
        PATH: process.env.PATH!,
        HOME: os.tmpdir(),
        SERVICE_URL: own.url,
        SERVICE_API_KEY: `sk_${"y".repeat(32)}`,
      },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr!.on("data", (d) => (stderr += d));
    const client = new Client({ name: "test", version: "1" });
    const reason = `Watch at ${own.url}/mcp: Invalid API key (401)`;
    await expect(client.connect(transport)).rejects.toThrow(reason);
    await client.close();
    expect(stderr).toContain(`watchctl mcp: ${reason}\n`);
  });
});
