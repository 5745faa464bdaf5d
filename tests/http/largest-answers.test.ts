/**
 * No answer takes the server down: an account filled to the watch cap, every watch at the field maximums (name,
 * query and condition at their longest, in characters JSON escapes six-fold; a webhook with every header it may have)
 * with a long last check, and ten clients asking at once for the largest answers they can get, against a server with
 * `npm start`'s heap. Every request is answered, and the server still answers after. The watches are written straight
 * into the database before the server starts (through the API they would take minutes). Slow by nature: it moves a
 * few hundred MB.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGE_TOO_LONG } from "@/server/api/trpc";
import { pgliteExtensions } from "@/server/db";
import { call } from "../helpers/api";
import { freshDatabaseUrl, freshDataDir, root, startServer, type RunningServer } from "../helpers/server";

const WATCHES = 2000;
const TEST_USER = "00000000-0000-0000-0000-000000000001";

/** The Node.js options of `npm start` (package.json's start script), so the server has the heap it has in production. */
function startOptions() {
  const start = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: { start: string } })
    .scripts.start;
  const options = start.split(/\s+/).filter((word) => word.startsWith("--"));
  expect(options).toContain("--max-old-space-size=384");
  return options.join(" ");
}

/** SQL that fills the SERVICE_NOAUTH test user's account to the cap, 100 of the watches public. */
const SEED = `
  INSERT INTO users (id, clerk_user_id, email, first_name, role, username)
    VALUES ('${TEST_USER}', 'user_noauth', 'test@localhost', 'Test', 'admin', 'flood');
  INSERT INTO tasks (id, user_id, name, search_query, condition_description, state, is_public, created_at)
    SELECT gen_random_uuid(), '${TEST_USER}', repeat(chr(1), 200), repeat(chr(1), 2000), repeat(chr(1), 4000), 'paused', i <= 100,
           now() - i * interval '1 second'
      FROM generate_series(1, ${WATCHES}) AS i;
  INSERT INTO task_notifications (id, task_id, type, config)
    SELECT gen_random_uuid(), id, 'webhook', jsonb_build_object(
             'url', 'https://example.com/' || repeat('h', 2028), 'method', 'POST',
             'headers', (SELECT jsonb_object_agg('X-Header-' || h, repeat('v', 1024)) FROM generate_series(1, 20) AS h))
      FROM tasks WHERE user_id = '${TEST_USER}';
  INSERT INTO task_notifications (id, task_id, type, config)
    SELECT gen_random_uuid(), id, 'email', jsonb_build_object('address', repeat('a', 64) || '@' || repeat('b', 180) || '.example')
      FROM tasks WHERE user_id = '${TEST_USER}';
  INSERT INTO executions (id, task_id, status, condition_met, completed_at, result, notification, grounding_sources, progress)
    SELECT gen_random_uuid(), id, 'success', true, now(),
           jsonb_build_object('condition_met', true, 'answer', repeat('a', 4000), 'evidence', repeat('e', 1000),
                              'confidence', 0.9, 'model', 'stub', 'duration_ms', 1000, 'next_run_reason', repeat('r', 300),
                              'usage', jsonb_build_object('input_tokens', 1, 'output_tokens', 4096)),
           jsonb_build_object('title', repeat('t', 120), 'markdown', repeat('m', 2000)),
           (SELECT jsonb_agg(jsonb_build_object('url', 'https://s' || s || '.example/' || repeat('p', 200),
                                                'title', repeat('T', 100), 'domain', 's' || s || '.example'))
              FROM generate_series(1, 10) AS s),
           (SELECT jsonb_agg(jsonb_build_object('at', now(), 'step', 'read',
                                                'detail', 'https://r' || p || '.example/' || repeat('d', 270)))
              FROM generate_series(1, 30) AS p)
      FROM tasks WHERE user_id = '${TEST_USER}';
  UPDATE tasks t SET last_execution_id = e.id, notified_execution_id = e.id FROM executions e WHERE e.task_id = t.id;
`;

async function seed(where: { dataDir: string; databaseUrl?: string }) {
  if (where.databaseUrl) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: where.databaseUrl });
    await client.connect();
    await client.query(SEED);
    await client.end();
    return;
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create(path.join(where.dataDir, "pglite"), { extensions: await pgliteExtensions() });
  await db.exec(SEED);
  await db.close();
}

let server: RunningServer;
beforeAll(async () => {
  const where = { dataDir: freshDataDir(), databaseUrl: await freshDatabaseUrl() };
  await seed(where);
  server = await startServer(
    { SERVICE_NOAUTH: "1", NODE_OPTIONS: startOptions(), DATABASE_URL: where.databaseUrl },
    { dataDir: where.dataDir },
  );
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

type Answer = { what: string; status: number; bytes: number; head: string; tail: string };

/** A request, its answer read to the end without keeping it (a list of every watch is hundreds of MB). */
async function ask(what: string, p: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(server.url + p, init);
  // Only the first and last 2,000 bytes are kept, and decoded at the end: decoding the rest cost a CPU-second or two.
  let bytes = 0;
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  const reader = res.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    bytes += chunk.value.length;
    if (head.length < 2000) head = Buffer.concat([head, chunk.value.subarray(0, 2000 - head.length)]);
    tail = Buffer.concat([tail, chunk.value.subarray(-2000)]).subarray(-2000);
  }
  return { what, status: res.status, bytes, head: head.toString("utf8"), tail: tail.toString("utf8") };
}

const mcp = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: JSON.stringify(body),
});
const listWatches = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "list_watches", arguments: { limit: 100 } },
});
const searchPublic = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "search_public_watches", arguments: { limit: 100 } },
};
const trpcBatch = (n: number) =>
  `/api/trpc/${Array(n).fill("tasks.list").join(",")}?batch=1&input=${encodeURIComponent(
    JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]))),
  )}`;

/** The server's peak resident memory so far (Linux), for the log. */
const peakMemory = () =>
  /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${server.process.pid}/status`, "utf8"))?.[1] ?? "?";

describe("the largest answers, ten at once", { timeout: 600_000 }, () => {
  it("are all answered, and the server keeps answering", async () => {
    const started = Date.now();
    const answers = await Promise.all([
      ask("every watch", "/api/v1/tasks"),
      ask("every paused watch", "/api/v1/tasks?state=paused"),
      ask("the largest page", "/api/v1/tasks?limit=500"),
      ask("MCP list_watches, largest page", "/mcp", mcp(listWatches(1))),
      ask("MCP search_public_watches, largest page", "/mcp", mcp(searchPublic)),
      ask("MCP batch of ten", "/mcp", mcp(Array.from({ length: 10 }, (_, i) => listWatches(i)))),
      ask("tRPC batch of ten", trpcBatch(10)),
      ask("public search, largest page", "/api/v1/public/tasks?limit=100"),
      ask("the dashboard's delivery history", "/dashboard/notifications"),
      ask("MCP list_watches, largest page", "/mcp", mcp(listWatches(2))),
    ]);
    console.log(
      `largest answers: ${((Date.now() - started) / 1000).toFixed(1)} s, server peak RSS ${peakMemory()} kB\n` +
        answers.map((a) => `  ${a.what}: ${a.status}, ${(a.bytes / 1e6).toFixed(1)} MB`).join("\n"),
    );
    for (const a of answers) expect(a.status, `${a.what}: ${a.head.slice(0, 300)}`).toBeLessThan(500);

    const [all, paused, page, tool, publicTool, batch, trpc, search, notifications] = answers;
    expect(all!.status).toBe(200);
    expect(all!.head.startsWith('[{"id":"')).toBe(true);
    expect(all!.tail.endsWith("}]")).toBe(true);
    expect(paused!.bytes).toBe(all!.bytes);
    expect(page!.status).toBe(200);
    expect(search!.status).toBe(200);
    // A page of 100 such watches is far over the cap of one tool answer: the tool says to ask for fewer.
    for (const answer of [tool!, publicTool!]) {
      expect(answer.bytes).toBeLessThan(2000);
      expect(JSON.parse(answer.head)).toMatchObject({
        result: { isError: true, content: [{ type: "text", text: expect.stringMatching(/smaller `limit`/) }] },
      });
    }
    expect(batch!.status).toBe(400);
    expect(JSON.parse(batch!.head)).toMatchObject({ error: { code: -32600 } });
    // tRPC holds a batch's answers together: a list call there asks for a page.
    expect(trpc!.status).toBe(400);
    expect(trpc!.head).toContain(PAGE_TOO_LONG);
    expect(notifications!.status).toBe(200);

    expect((await call("GET", "/api/health", { base: server.url })).status).toBe(200);
    expect(server.process.exitCode).toBeNull();
  });

  it("counts every watch in the unpaged list", async () => {
    const res = await call("GET", "/api/v1/tasks?state=paused&limit=1", { base: server.url });
    expect(res.headers.get("x-total-count")).toBe(String(WATCHES));
  });
});
