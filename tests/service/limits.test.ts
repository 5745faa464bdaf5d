/**
 * What bounds one account's use of the service: the REST API sends a long list a page at a time, tRPC and MCP answer a
 * page at most (MCP with the total), one JSON-RPC message per
 * request and at most 1 MB of text per tool answer, marked when it holds others' text; reads are rate limited per
 * account (REST, the dashboard's tRPC and MCP together) as writes are, refused credentials per client address, and
 * every counted answer says so in its headers; an account holds at most MAX_WATCHES_PER_ACCOUNT watches (create,
 * fork and `watchctl apply` alike).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "@/client/cli";
import { PAGE } from "@/server/api/rest";
import { MAX_ITEMS_HELD, PAGE_TOO_LONG } from "@/server/api/trpc";
import { sql } from "@/server/db/sql";
import { MAX_ANSWER_BYTES, untrustedNotice } from "@/server/mcp/tools";
import { tempDir } from "../helpers/server";
import { withService } from "../helpers/service";

const app = withService({ AGENT_MODEL: undefined, AGENT_BASE_URL: undefined });
const { call, newApiKeyUser } = app;

type Key = { apiKey: string; id: string };
const MCP_HEADERS = { accept: "application/json, text/event-stream" };

/** One JSON-RPC message (or anything else) posted to /mcp with `key`. */
const post = (key: string, body: unknown, send = call) =>
  send("POST", "/mcp", { auth: key, body, headers: MCP_HEADERS });

/** A tools/call and its result. */
async function tool(key: string, name: string, args: Record<string, unknown> = {}) {
  const r = await post(key, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
  expect(r.status, r.text).toBe(200);
  return r.body.result as {
    content: { type: string; text: string }[];
    structuredContent?: any;
    isError?: boolean;
  };
}
const failure = (result: Awaited<ReturnType<typeof tool>>) =>
  result.isError ? result.content[0]!.text : "(succeeded)";

/** `n` paused watches of the user, newest first, made in SQL; `text` fills name, query and condition. */
const addWatches = (user: Key, n: number, opts: { text?: string; public?: boolean } = {}) =>
  sql(
    `INSERT INTO tasks (id, user_id, name, search_query, condition_description, state, is_public, created_at)
     SELECT gen_random_uuid(), $1::uuid, left($2, 200) || ' ' || i, left($2, 2000), left($2, 4000), 'paused', $3, now() - i * interval '1 second'
       FROM generate_series(1, $4::int) AS i`,
    [user.id, opts.text ?? "watch", opts.public ?? false, n],
  );

/** The account's watch count as the database keeps it, and its watches counted. */
const watchCounts = async (user: Key) =>
  (
    await sql<{ kept: number; actual: number }>(
      `SELECT watch_count AS kept, (SELECT count(*)::int FROM tasks WHERE user_id = u.id) AS actual
         FROM users u WHERE id = $1::uuid`,
      [user.id],
    )
  )[0];

describe("long lists", () => {
  it("are sent by the REST API a page at a time, counted once, without an item twice when one is added meanwhile", async () => {
    const user = await newApiKeyUser();
    await addWatches(user, 2 * PAGE + 20);
    const names = (list: { name: string }[]) => list.map((w) => w.name);
    // The whole list and the next request in one rate-limit window, however slow the machine.
    const clock = app.freezeRateLimits();
    const all = await call("GET", "/api/v1/tasks", { auth: user.apiKey });
    expect(all.status).toBe(200);
    expect(all.headers.get("x-total-count")).toBe(String(2 * PAGE + 20));
    expect(all.headers.get("content-length")).toBeNull();
    expect(names(all.body)).toEqual(Array.from({ length: 2 * PAGE + 20 }, (_, i) => `watch ${i + 1}`));
    const counted = Number(all.headers.get("x-ratelimit-remaining"));
    const page = await call("GET", `/api/v1/tasks?limit=${PAGE + 5}&offset=10`, { auth: user.apiKey });
    clock.release();
    expect(names(page.body)).toEqual(Array.from({ length: PAGE + 5 }, (_, i) => `watch ${i + 11}`));
    expect(Number(page.headers.get("x-ratelimit-remaining"))).toBe(counted - 1);

    // A watch created while the list is being sent pushes the first page's last item onto the second: sent once.
    const res = await app.fetch("/api/v1/tasks", { headers: { authorization: `Bearer ${user.apiKey}` } });
    const reader = res.body!.getReader();
    let text = new TextDecoder().decode((await reader.read()).value);
    expect(
      (await call("POST", "/api/v1/tasks", { auth: user.apiKey, body: { search_query: "new", state: "paused" } }))
        .status,
    ).toBe(200);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += new TextDecoder().decode(chunk.value);
    expect(names(JSON.parse(text))).toEqual(names(all.body));
  });

  it("are refused over tRPC past a page: its answers are held whole", async () => {
    const user = await newApiKeyUser();
    const trpc = app.trpc(user.apiKey);
    await expect(trpc.tasks.list({})).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining(PAGE_TOO_LONG),
    });
    await expect(trpc.tasks.list({ limit: MAX_ITEMS_HELD + 1 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      trpc.tasks.executions({ id: "00000000-0000-4000-8000-000000000000", limit: 500 }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    expect(await trpc.tasks.list({ limit: MAX_ITEMS_HELD })).toEqual([]);
  });
});

describe("MCP lists", () => {
  it("answer a page (20 unless asked, at most 100) with the total beside it", async () => {
    const user = await newApiKeyUser();
    await addWatches(user, 25);
    const first = await tool(user.apiKey, "list_watches");
    expect(first.structuredContent.watches).toHaveLength(20);
    expect(first.structuredContent.total).toBe(25);
    const last = await tool(user.apiKey, "list_watches", { limit: 10, offset: 20 });
    expect(last.structuredContent.watches.map((w: { name: string }) => w.name)).toEqual(
      [21, 22, 23, 24, 25].map((i) => `watch ${i}`),
    );
    expect(last.structuredContent.total).toBe(25);
    expect(failure(await tool(user.apiKey, "list_watches", { limit: 101 }))).toBe(
      "limit: Input should be less than or equal to 100",
    );
    expect(failure(await tool(user.apiKey, "list_watches", { offset: -1 }))).toBe(
      "offset: Input should be greater than or equal to 0",
    );

    const { id } = first.structuredContent.watches[0];
    expect((await tool(user.apiKey, "list_findings", { id })).structuredContent).toEqual({ findings: [], total: 0 });
    const search = await tool(user.apiKey, "search_public_watches", { q: "no such watch anywhere", offset: 5 });
    expect(search.structuredContent).toEqual({ watches: [], total: 0 });
  });

  it("refuse an answer over 1 MB of text, asking for a smaller limit", async () => {
    const user = await newApiKeyUser();
    // Control characters take six bytes each as JSON: ~37 kB of text per watch.
    await addWatches(user, 40, { text: "\u0001".repeat(4000) });
    const big = await tool(user.apiKey, "list_watches", { limit: 40 });
    expect(failure(big)).toMatch(
      /^The answer is too large \(1\.\d MB; at most 1\.0 MB\): ask again with a smaller `limit` \(this one was 40\)$/,
    );
    expect(big.structuredContent).toBeUndefined();
    const fits = await tool(user.apiKey, "list_watches", { limit: 20 });
    expect(fits.isError).toBeFalsy();
    expect(Buffer.byteLength(fits.content.at(-1)!.text)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(fits.structuredContent.watches).toHaveLength(20);
  });
});

describe("MCP requests", () => {
  it("carry one JSON-RPC message: a batch is refused as an invalid request", async () => {
    const user = await newApiKeyUser();
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    for (const batch of [[ping(1)], [ping(1), ping(2)], []]) {
      const r = await post(user.apiKey, batch);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: "Invalid Request: one JSON-RPC message per request (batches are not accepted)",
        },
      });
      expect(r.headers.get("x-ratelimit-limit")).toBe("600");
    }
    expect((await post(user.apiKey, ping(3))).body).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
  });

  it("mark text from the web or other users as untrusted, and tools that change things say to act on the user's word", async () => {
    const user = await newApiKeyUser();
    const list = await tool(user.apiKey, "search_public_watches");
    expect(list.content).toEqual([
      { type: "text", text: untrustedNotice("other users and the web") },
      { type: "text", text: JSON.stringify(list.structuredContent) },
    ]);
    expect(list.content[0]!.text).not.toContain("\n");
    const usage = await tool(user.apiKey, "get_usage");
    expect(usage.content).toEqual([{ type: "text", text: JSON.stringify(usage.structuredContent) }]);

    const tools = (await post(user.apiKey, { jsonrpc: "2.0", id: 1, method: "tools/list" })).body.result.tools as {
      name: string;
      description: string;
      annotations: { readOnlyHint: boolean };
    }[];
    for (const t of tools.filter((t) => !t.annotations.readOnlyHint))
      expect(t.description, t.name).toMatch(/only (at|when) the user('s own request| asks for it themselves)/);
  });
});

describe("rate limits", () => {
  let clock: ReturnType<typeof app.freezeRateLimits>;
  beforeEach(() => void (clock = app.freezeRateLimits()));
  afterEach(() => {
    clock.release();
    app.setEnv({});
  });

  it("count every read of an account, over REST, the dashboard's tRPC and MCP together", async () => {
    app.setEnv({ RATE_LIMIT_READS_PER_MIN: "5" });
    const user = await newApiKeyUser();
    const reads = [
      await call("GET", "/api/v1/tasks", { auth: user.apiKey }),
      await call("GET", "/auth/me", { auth: user.apiKey }),
      await post(user.apiKey, { jsonrpc: "2.0", id: 1, method: "tools/list" }),
    ];
    expect(reads.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(reads.map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual(["4", "3", "2"]);
    for (const r of reads) {
      expect(r.headers.get("x-ratelimit-limit")).toBe("5");
      expect(Number(r.headers.get("x-ratelimit-reset"))).toBeGreaterThan(clock.now() / 1000);
    }
    await app.trpc(user.apiKey).usage.get();
    const listed = await post(user.apiKey, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "list_watches", arguments: {} },
    });
    expect(listed.headers.get("x-ratelimit-remaining")).toBe("0");

    // Over the limit: REST and MCP alike; a 4xx answer is counted and says so too.
    const refused = await call("GET", "/api/v1/tasks/00000000-0000-4000-8000-000000000000", { auth: user.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/^Rate limit exceeded\. Try again in \d+ seconds\.$/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(failure(await tool(user.apiKey, "get_usage"))).toMatch(/^Rate limit exceeded/);
    const initialize = await post(user.apiKey, { jsonrpc: "2.0", id: 3, method: "ping" });
    expect(initialize.status).toBe(429);
    expect(initialize.headers.get("retry-after")).not.toBeNull();
    // Writes have a bucket of their own.
    expect(
      (await call("POST", "/api/v1/tasks", { auth: user.apiKey, body: { search_query: "w", state: "paused" } })).status,
    ).toBe(200);

    clock.nextWindow();
    const again = await call("GET", "/api/v1/tasks/00000000-0000-4000-8000-000000000000", { auth: user.apiKey });
    expect(again.status).toBe(404);
    expect(again.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("count refused credentials per client address, and say so on each 401", async () => {
    const visitor = app.from("203.0.113.77");
    const answers = [];
    for (let i = 0; i < 60; i++) answers.push(await visitor("GET", "/api/v1/tasks", { auth: "not-a-token" }));
    expect(answers.every((a) => a.status === 401)).toBe(true);
    expect(answers[0]!.headers.get("x-ratelimit-limit")).toBe("60");
    expect(answers[59]!.headers.get("x-ratelimit-remaining")).toBe("0");
    const refused = await visitor("GET", "/api/v1/tasks", {});
    expect(refused.status).toBe(429);
    const mcp = await post("not-a-token", { jsonrpc: "2.0", id: 1, method: "ping" }, visitor);
    expect(mcp.status).toBe(429);
    // Another address is not affected.
    const other = await app.from("203.0.113.78")("POST", "/mcp", { body: {}, headers: MCP_HEADERS });
    expect(other.status).toBe(401);
    expect(other.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(other.headers.get("x-ratelimit-remaining")).toBe("59");
  });
});

describe("the watch cap (MAX_WATCHES_PER_ACCOUNT)", () => {
  afterEach(() => app.setEnv({}));

  it("counts paused and completed watches, and refuses create, fork and apply past it", async () => {
    app.setEnv({ MAX_WATCHES_PER_ACCOUNT: "3" });
    const user = await newApiKeyUser();
    const owner = await newApiKeyUser();
    await addWatches(owner, 1, { public: true });
    const [shared] = await sql<{ id: string }>(`SELECT id FROM tasks WHERE user_id = $1::uuid`, [owner.id]);
    const refusal = { status: 403, body: { detail: "Watch limit reached (3). Delete a watch first." } };

    const create = (body: Record<string, unknown>) => call("POST", "/api/v1/tasks", { auth: user.apiKey, body });
    expect((await create({ search_query: "one", state: "paused" })).status).toBe(200);
    const second = await create({ search_query: "two" });
    expect(second.status).toBe(200);
    expect(
      (await call("PUT", `/api/v1/tasks/${second.body.id}`, { auth: user.apiKey, body: { state: "completed" } }))
        .status,
    ).toBe(200);
    expect((await call("POST", `/api/v1/tasks/${shared!.id}/fork`, { auth: user.apiKey, body: {} })).status).toBe(200);

    expect(await create({ search_query: "four", state: "paused" })).toMatchObject(refusal);
    expect(await call("POST", `/api/v1/tasks/${shared!.id}/fork`, { auth: user.apiKey, body: {} })).toMatchObject(
      refusal,
    );
    expect(failure(await tool(user.apiKey, "create_watch", { search_query: "five" }))).toBe(refusal.body.detail);

    // watchctl apply creates through the same operation: it stops at the cap with the service's reason.
    const file = path.join(tempDir("apply-"), "watches.yaml");
    fs.writeFileSync(file, "watches:\n  - name: six\n    search_query: six\n");
    let stderr = "";
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((stderr += String(s)), true));
    const saved = { url: process.env.SERVICE_URL, key: process.env.SERVICE_API_KEY };
    Object.assign(process.env, { SERVICE_URL: app.url, SERVICE_API_KEY: user.apiKey });
    try {
      expect(await main(["apply", "-f", file])).not.toBe(0);
    } finally {
      out.mockRestore();
      err.mockRestore();
      for (const [name, value] of [
        ["SERVICE_URL", saved.url],
        ["SERVICE_API_KEY", saved.key],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
    expect(stderr).toContain("Watch limit reached (3). Delete a watch first.");

    // Deleting one frees its place.
    await call("DELETE", `/api/v1/tasks/${second.body.id}`, { auth: user.apiKey });
    expect(await watchCounts(user)).toEqual({ kept: 2, actual: 2 });
    expect((await create({ search_query: "again", state: "paused" })).status).toBe(200);
    expect((await call("GET", "/api/v1/tasks", { auth: user.apiKey })).body).toHaveLength(3);
    expect(await watchCounts(user)).toEqual({ kept: 3, actual: 3 });
  });

  it("is checked against a count the database keeps through bulk inserts, deletes and an account's deletion", async () => {
    app.setEnv({ MAX_WATCHES_PER_ACCOUNT: "30" });
    const [user, other] = [await newApiKeyUser(), await newApiKeyUser()];
    await addWatches(user, 25);
    // One statement adding watches to two accounts counts each.
    await sql(
      `INSERT INTO tasks (id, user_id, name, search_query, condition_description, state)
       SELECT gen_random_uuid(), u, 'bulk', 'bulk', 'bulk', 'paused' FROM unnest($1::uuid[]) AS u, generate_series(1, 4)`,
      [[user.id, other.id]],
    );
    expect(await watchCounts(user)).toEqual({ kept: 29, actual: 29 });
    expect(await watchCounts(other)).toEqual({ kept: 4, actual: 4 });
    const create = () =>
      call("POST", "/api/v1/tasks", { auth: user.apiKey, body: { search_query: "one more", state: "paused" } });
    expect((await create()).status).toBe(200);
    expect((await create()).status).toBe(403);

    await sql(`DELETE FROM tasks WHERE name = 'bulk'`, []);
    expect(await watchCounts(user)).toEqual({ kept: 26, actual: 26 });
    expect(await watchCounts(other)).toEqual({ kept: 0, actual: 0 });
    expect((await create()).status).toBe(200);

    // The account's watches go with it (their count has no account left to update).
    await sql(`DELETE FROM users WHERE id = $1::uuid`, [user.id]);
    expect(await sql(`SELECT 1 FROM tasks WHERE user_id = $1::uuid`, [user.id])).toEqual([]);
  });
});
