/**
 * npm run bench:scale — how many watches one box carries, and what a second one adds (docs/benchmarks.md, Scale).
 * Seeded with SQL in bulk, never through the API; the product runs as `npm start` runs it, with a stub model that
 * answers at once (or in 1 s for the replica run). Phases (BENCH_PHASES, comma list; all by default):
 *  - postgres: 100,000 watches (10,000 active, next runs over 24 h, armed by the server at start as in production;
 *    1,000 of them due in the same minute), 1,000,000 past executions over 120 days, 20,000 public, one user with
 *    1,000 watches and one watch with 10,000 executions. Start-up, the burst, p50/p99 of three reads at 8
 *    connections, idle CPU against the same server on an empty database, bytes per row and growth per day, time to
 *    first answer over 100 creates, peak RSS, and the retention job on the seeded history.
 *  - pglite: the same (smaller burst, shorter idle) on the embedded database at 1,000 and 10,000 watches.
 *  - replicas: 2,000 due watches, a model taking 1 s per run, AGENT_CONCURRENCY=8: one replica, then two.
 *  - list: the postgres phase's seed, then only the own list's pages (attention order, words, found state) at 8
 *    connections, at one, from two replicas (4 connections each), from one start with SERVER_PROCESSES=2 (8
 *    connections) and in process: what the paged list costs at that size, without the rest of the phase.
 * BENCH_WATCHES (100000), BENCH_PGLITE_SIZES (1000,10000), BENCH_BACKLOG (2000), BENCH_IDLE_SECONDS (60),
 * BENCH_SECONDS (10, per latency run) and BENCH_WARMUP_SECONDS (15, the list phase's server before its first page)
 * scale a run down.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import bcrypt from "bcryptjs";
import pg from "pg";
import { generateApiKey } from "../../server/auth/api-keys.ts";
import { migrateDatabase } from "../../server/db/schema-engine.ts";
import { decisionFor, startModelStub, startSearxStub } from "../../tests/helpers/stubs/model.ts";
import { throwawayPostgres } from "../../tests/helpers/postgres.mjs";
import { benchNodeArgs, productArgs, stopped, treeCpuSeconds, unlimited } from "./product.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
process.chdir(root);
const PHASES = (process.env.BENCH_PHASES ?? "postgres,pglite,replicas").split(",");
const WATCHES = Number(process.env.BENCH_WATCHES ?? 100_000);
const PGLITE_SIZES = (process.env.BENCH_PGLITE_SIZES ?? "1000,10000").split(",").map(Number);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 2000);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 15);
const DAY_MS = 24 * 3_600_000;

type Query = (text: string, values?: unknown[]) => Promise<{ rows: any[] }>;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
/** The data directories this run makes, removed when it exits. */
const work = fs.mkdtempSync(path.join(os.tmpdir(), "watch-bench-scale-"));
process.once("exit", () => fs.rmSync(work, { recursive: true, force: true }));
const scratch = (name: string) => fs.mkdtempSync(path.join(work, name));
const out: string[] = [];
const report = (line: string) => (out.push(line), console.log(line));

// ---- seeding ---------------------------------------------------------------------------------------------------

const WORDS = [
  "postgres",
  "release",
  "iphone",
  "launch",
  "rust",
  "edition",
  "kernel",
  "node",
  "python",
  "beta",
  "gpu",
  "price",
  "election",
  "stock",
  "court",
  "conference",
  "api",
  "security",
  "patch",
  "update",
];

/**
 * `watches` watches for `watches / 100` users; user 0 owns min(1,000, watches / 10). Every 10th is active, its next
 * run spread over 24 h from `firstDue`, except the first `burst` active ones, due within the minute at `burstAt`.
 * Every 5th (offset 1) is public. Ten executions per watch over 120 days, one in 20 a finding, and `bigWatch` more on
 * watch 0. Returns user 0's API key and id, and watch 0's id.
 */
async function seed(
  q: Query,
  o: { watches: number; bigWatch: number; burst: number; burstAt: number; firstDue: number },
) {
  const users = Math.max(2, Math.floor(o.watches / 100));
  const big = Math.min(1000, Math.floor(o.watches / 10));
  const active = Math.ceil(o.watches / 10);
  await q(
    `INSERT INTO users (id, clerk_user_id, email, username, role)
           SELECT gen_random_uuid(), 'scale_' || lpad(g::text, 7, '0'), 'u' || g || '@example.com', 'u' || g, 'developer' FROM generate_series(0, $1::int - 1) g`,
    [users],
  );
  await q(
    `CREATE TEMP TABLE su AS SELECT id, (row_number() OVER (ORDER BY clerk_user_id) - 1)::int AS n FROM users WHERE clerk_user_id LIKE 'scale_%'`,
  );
  const words = `(ARRAY['${WORDS.join("','")}'])`;
  // $1 burst, $2 burstAt (ms), $3 firstDue (ms), $4 active, $5 watches, $6 watches of user 0, $7 users
  await q(
    `INSERT INTO tasks (id, user_id, name, search_query, condition_description, state, next_run, is_public, view_count, subscriber_count, created_at)
     SELECT gen_random_uuid(), su.id,
            'Watch ' || g || ' ' || ${words}[1 + g % 20] || ' ' || ${words}[1 + (g / 20) % 20],
            ${words}[1 + g % 20] || ' ' || ${words}[1 + (g / 20) % 20] || ' news' || CASE WHEN g % 100 = 7 THEN ' zeppelin' ELSE '' END,
            'the ' || ${words}[1 + (g / 20) % 20] || ' is announced',
            (CASE WHEN g % 10 = 0 THEN 'active' WHEN g % 10 < 6 THEN 'paused' ELSE 'completed' END)::"TaskState",
            CASE WHEN g % 10 <> 0 THEN NULL
                 WHEN g / 10 < $1::int THEN to_timestamp(($2::float8 + ((g / 10) * 60000.0) / $1::int) / 1000.0)
                 ELSE to_timestamp(($3::float8 + ((g / 10 - $1::int) * ${DAY_MS}.0) / greatest(1, $4::int - $1::int)) / 1000.0) END,
            g % 5 = 1, (g * 7919) % 1000, (g * 31) % 50, now() - (g || ' seconds')::interval
       FROM generate_series(0, $5::int - 1) g
       JOIN su ON su.n = CASE WHEN g < $6::int THEN 0 ELSE 1 + g % ($7::int - 1) END`,
    [o.burst, o.burstAt, o.firstDue, active, o.watches, big, users],
  );
  await q(`CREATE TEMP TABLE st AS SELECT id, (row_number() OVER (ORDER BY created_at DESC) - 1)::int AS n FROM tasks`);
  const result = `json_build_object('condition_met', (k + s.n) % 20 = 0, 'answer', 'No announcement yet: the project page still lists the previous version as current, and no beta date has been given.',
                    'evidence', 'The release page and the mailing list archive were checked.', 'confidence', 0.7, 'notify', false,
                    'next_run_reason', 'A date may be announced this week', 'model', 'stub', 'usage', json_build_object('input_tokens', 1800, 'output_tokens', 220), 'duration_ms', 2400)`;
  const sources = `json_build_array(json_build_object('url', 'https://www.example.org/news/' || s.n || '/' || k, 'title', 'Release notes'), json_build_object('url', 'https://lists.example.com/archive/' || k, 'title', 'Mailing list'))`;
  const insertExecutions = (from: string, perWatch: string, days: number) =>
    q(`INSERT INTO executions (id, task_id, status, condition_met, started_at, completed_at, created_at, result, grounding_sources)
       SELECT gen_random_uuid(), s.id, 'success', (k + s.n) % 20 = 0, at, at + interval '3 seconds', at, ${result}, ${sources}
         FROM ${from}, generate_series(1, ${perWatch}) k,
              LATERAL (SELECT now() - ((k * ${days} * 86400.0 / ${perWatch}) + s.n % 3600) * interval '1 second' AS at) t`);
  await insertExecutions("st s", "10", 120);
  await insertExecutions("(SELECT * FROM st WHERE n = 0) s", String(o.bigWatch), 100);
  await q(
    `UPDATE tasks t SET last_execution_id = l.id FROM (SELECT DISTINCT ON (task_id) task_id, id FROM executions ORDER BY task_id, created_at DESC) l WHERE l.task_id = t.id`,
  );
  // What the own list reads and sorts by, as runs and the owner's looks leave it: every watch answered, those with a
  // met run have news (half of it seen), one in 50 is failing and one in 70 had its latest notice fail.
  await q(
    `UPDATE tasks t SET latest_answer = 'No announcement yet: the project page still lists the previous version as current, and no beta date has been given.',
            latest_answer_at = e.completed_at, public_answer = 'No announcement yet: the project page still lists the previous version as current, and no beta date has been given.',
            public_answer_at = e.completed_at,
            finding_at = (SELECT max(f.created_at) FROM executions f WHERE f.task_id = t.id AND f.condition_met)
       FROM executions e WHERE e.id = t.last_execution_id`,
  );
  await q(`UPDATE tasks SET seen_at = now() WHERE finding_at IS NOT NULL AND hashtext(id::text) % 2 = 0`);
  await q(
    `UPDATE tasks SET failure_streak = 3, failing_since = now() - interval '1 hour' WHERE hashtext(id::text) % 50 = 0`,
  );
  await q(`UPDATE tasks SET delivery_failed = true WHERE hashtext(id::text) % 70 = 0`);
  // As autovacuum leaves a database that lives with its rows: the updates above left every watch's earlier versions
  // behind, and a worker cleaning them up while the reads are measured would take one of the two cores.
  await q(`VACUUM (ANALYZE)`);
  const { key, lookupId, keyPrefix } = generateApiKey();
  const owner = (await q(`SELECT id FROM su WHERE n = 0`)).rows[0].id;
  await q(
    `INSERT INTO api_keys (id, user_id, lookup_id, key_hash, key_prefix, name) VALUES (gen_random_uuid(), $1, $2, $3, $4, 'bench')`,
    [owner, lookupId, await bcrypt.hash(key, 10), keyPrefix],
  );
  const bigTask = (await q(`SELECT id FROM st WHERE n = 0`)).rows[0].id as string;
  await q(`DROP TABLE su`);
  await q(`DROP TABLE st`);
  return { key, bigTask, owner: owner as string };
}

const dueIn = async (q: Query, minute: number) =>
  new Map<string, number>(
    (
      await q(
        `SELECT id, next_run FROM tasks WHERE next_run >= to_timestamp($1::float8 / 1000.0) AND next_run < to_timestamp(($1::float8 + 60000) / 1000.0)`,
        [minute],
      )
    ).rows.map((r) => [r.id, new Date(r.next_run).getTime()]),
  );

/** Moves the burst to the minute starting `leadMs` from now (seeding takes a while): returns its watches and times. */
async function shiftBurst(q: Query, seededAt: number, leadMs: number) {
  const burstAt = Math.ceil((Date.now() + leadMs) / 60_000) * 60_000;
  await q(
    `UPDATE tasks SET next_run = next_run + ($1::float8 * interval '1 millisecond') WHERE next_run >= to_timestamp($2::float8 / 1000.0) AND next_run < to_timestamp(($2::float8 + 60000) / 1000.0)`,
    [burstAt - seededAt, seededAt],
  );
  return { burstAt, due: await dueIn(q, burstAt) };
}

// ---- the product -----------------------------------------------------------------------------------------------

type Server = { child: ChildProcess; url: string; output: () => string; startMs: number };
let port = 18200;
async function startProduct(env: Record<string, string>): Promise<Server> {
  const p = port++;
  const started = Date.now();
  const child = spawn(process.execPath, [...benchNodeArgs, ...productArgs], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(p),
      HOSTNAME: "127.0.0.1",
      LOG_LEVEL: "warn",
      TRUST_PROXY: "1",
      ...unlimited,
      MAX_ACTIVE_TASKS_PER_USER: "1000000",
      RUNS_PER_USER_PER_MONTH: "100000000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout!.on("data", (d) => (text += d));
  child.stderr!.on("data", (d) => (text += d));
  // Ready when readiness says so (LOG_LEVEL=warn keeps the start-up line out of the output).
  const ready = async () => (await fetch(`http://127.0.0.1:${p}/api/health/ready`).catch(() => null))?.status === 200;
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`server exited:\n${text}`);
    if (Date.now() - started > 600_000) {
      child.kill("SIGKILL");
      throw new Error(`server did not start in 10 min:\n${text}`);
    }
    await sleep(100);
  }
  return { child, url: `http://127.0.0.1:${p}`, output: () => text, startMs: Date.now() - started };
}

/** The server's CPU time (user + system) in ms, with its workers' when it serves from several processes. */
const cpuMs = (pid: number) => treeCpuSeconds(pid) * 1000;
const peakRss = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;

async function idleCpu(s: Server, seconds = IDLE_SECONDS) {
  await sleep(5000);
  const before = cpuMs(s.child.pid!);
  await sleep(seconds * 1000);
  return ((cpuMs(s.child.pid!) - before) / (seconds * 1000)) * 100;
}

let client = 0;
/**
 * p50/p99 at `connections` (8); every request from its own address (TRUST_PROXY=1), as from many clients. With the
 * server's process, also its CPU per request: what the latency is made of when one core serves eight clients.
 */
async function latency(url: string, key: string, server?: Server, duration = SECONDS, connections = 8) {
  const cpuBefore = server ? cpuMs(server.child.pid!) : 0;
  const r = await autocannon({
    url,
    connections,
    duration,
    headers: { authorization: `Bearer ${key}` },
    requests: [
      {
        setupRequest: (req: any) => ({
          ...req,
          headers: {
            ...req.headers,
            "x-forwarded-for": `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client++ & 255}`,
          },
        }),
      },
    ],
  });
  const cpu = server ? (cpuMs(server.child.pid!) - cpuBefore) / Math.max(1, r.requests.total) : undefined;
  return { p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average, errors: r.non2xx + r.errors, cpu };
}

type Latency = Awaited<ReturnType<typeof latency>>;

async function readLatencies(s: Server, key: string, bigTask: string, owned: number, history: number) {
  const base = `${s.url}/api/v1`;
  const rows: [string, Latency][] = [];
  for (const [name, url] of [
    [`\`GET /api/v1/tasks\` (${owned.toLocaleString("en")} watches)`, `${base}/tasks`],
    ...ownListPages(base, owned),
    [
      "`GET /api/v1/public/tasks?q=kernel&sort=popular` (29 % of public watches match)",
      `${base}/public/tasks?q=kernel&sort=popular`,
    ],
    [
      "`GET /api/v1/public/tasks?q=zeppelin&sort=popular` (no public watch matches)",
      `${base}/public/tasks?q=zeppelin&sort=popular`,
    ],
    [
      `\`GET /api/v1/tasks/{id}/executions\` (of ${history.toLocaleString("en")})`,
      `${base}/tasks/${bigTask}/executions`,
    ],
  ] as const) {
    await latency(url, key); // warm-up
    rows.push([name, await latency(url, key)]);
  }
  return rows;
}

/**
 * The own list's pages the dashboard and API clients ask for: the attention order, with words, by found state; and the
 * newest-first page beside them.
 */
const ownListPages = (base: string, owned: number) =>
  [
    [`\`GET /api/v1/tasks?limit=50\` (newest first: the page as before, for comparison)`, `${base}/tasks?limit=50`],
    [
      `\`GET /api/v1/tasks?limit=50&sort=attention\` (a page of ${owned.toLocaleString("en")} watches)`,
      `${base}/tasks?limit=50&sort=attention`,
    ],
    [
      "`GET /api/v1/tasks?limit=50&sort=attention&q=kernel` (10 % of them match)",
      `${base}/tasks?limit=50&sort=attention&q=kernel`,
    ],
    [
      "`GET /api/v1/tasks?limit=50&sort=attention&q=zeppelin` (1 % match)",
      `${base}/tasks?limit=50&sort=attention&q=zeppelin`,
    ],
    [
      "`GET /api/v1/tasks?limit=50&sort=attention&state=failing`",
      `${base}/tasks?limit=50&sort=attention&state=failing`,
    ],
  ] as const;

/** Waits until every watch in `due` ran, then checks each ran once and how late it started. */
async function burst(q: Query, due: Map<string, number>, since: Date) {
  const ids = [...due.keys()];
  const deadline = Math.max(...due.values()) + 180_000;
  let rows: { task_id: string; started_at: Date }[] = [];
  while (Date.now() < deadline) {
    rows = (
      await q(
        `SELECT task_id, started_at FROM executions WHERE task_id = ANY($1::uuid[]) AND started_at > $2 AND status IN ('success', 'failed')`,
        [ids, since],
      )
    ).rows;
    if (new Set(rows.map((r) => r.task_id)).size >= ids.length) break;
    await sleep(1000);
  }
  await sleep(3000); // a duplicate would show up now
  rows = (
    await q(`SELECT task_id, started_at FROM executions WHERE task_id = ANY($1::uuid[]) AND started_at > $2`, [
      ids,
      since,
    ])
  ).rows;
  const runs = new Map<string, number>();
  for (const r of rows) runs.set(r.task_id, (runs.get(r.task_id) ?? 0) + 1);
  const once = ids.filter((id) => runs.get(id) === 1).length;
  const delays = rows.map((r) => r.started_at.getTime() - due.get(r.task_id)!);
  return { once, of: ids.length, p50: pct(delays, 50), p99: pct(delays, 99) };
}

/** Time from POST (run_immediately) to the first execution `success` visible through the API. */
async function timeToFirstAnswer(s: Server, key: string, n = 100) {
  const times: number[] = [];
  const headers = {
    authorization: `Bearer ${key}`,
    "content-type": "application/json",
    "x-forwarded-for": "10.255.0.1",
  };
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(`${s.url}/api/v1/tasks`, {
      method: "POST",
      headers,
      body: JSON.stringify({ search_query: `first answer ${i}`, run_immediately: true }),
    });
    const { id } = (await res.json()) as { id: string };
    for (;;) {
      const runs = (await (await fetch(`${s.url}/api/v1/tasks/${id}/executions?limit=1`, { headers })).json()) as {
        status: string;
      }[];
      if (runs[0]?.status === "success") break;
      if (performance.now() - t0 > 60_000) throw new Error(`no answer for ${id} after 60 s: ${JSON.stringify(runs)}`);
      await sleep(20);
    }
    times.push(performance.now() - t0);
  }
  return { p50: pct(times, 50), p99: pct(times, 99) };
}

async function sizes(q: Query) {
  const n = async (sql: string) => Number((await q(sql)).rows[0].n);
  return {
    executions: await n(`SELECT pg_total_relation_size('executions') AS n`),
    executionRows: await n(`SELECT count(*) AS n FROM executions`),
    tasks: await n(`SELECT pg_total_relation_size('tasks') + pg_total_relation_size('task_notifications') AS n`),
    taskRows: await n(`SELECT count(*) AS n FROM tasks`),
    engine: await n(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = 'dbos' AND c.relkind = 'r'`,
    ),
    workflows: await n(`SELECT count(*) AS n FROM dbos.workflow_status`),
  };
}

const modelNow = () =>
  startModelStub(() =>
    decisionFor({
      condition_met: false,
      notify: false,
      notification: null,
      finding_key: null,
      next_run: new Date(Date.now() + DAY_MS).toISOString(),
    }),
  );

// ---- phases ----------------------------------------------------------------------------------------------------

/** A new database on the cluster, migrated: its URL. */
async function freshDatabase(cluster: { url: string }, name: string) {
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  await migrateDatabase(url.toString());
  return url.toString();
}

async function postgresPhase(cluster: { url: string }) {
  const [model, searx] = [await modelNow(), await startSearxStub()];
  const agent = { AGENT_MODEL: "openai-compatible:stub", AGENT_BASE_URL: `${model.url}/v1`, SEARXNG_URL: searx.url };
  const fresh = (name: string) => freshDatabase(cluster, name);

  // Baseline: the same server on an empty database.
  const emptyUrl = await fresh(`scale_empty_${Date.now()}`);
  const empty = await startProduct({ ...agent, DATABASE_URL: emptyUrl });
  const idleEmpty = await idleCpu(empty);
  const rssEmpty = peakRss(empty.child.pid!);
  await stopped(empty.child);

  const url = await fresh(`scale_${Date.now()}`);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const q: Query = (text, values) => db.query(text, values);
  const seedStart = Date.now();
  const seedAt = Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000;
  const seeded = await seed(q, {
    watches: WATCHES,
    bigWatch: 10_000,
    burst: Math.min(1000, WATCHES / 10),
    burstAt: seedAt,
    firstDue: seedAt + 60_000,
  });
  const seedMs = Date.now() - seedStart;
  const seedEnd = new Date();
  // The server arms 10,000 watches at start: the burst minute comes after it is up.
  const { burstAt, due } = await shiftBurst(q, seedAt, Math.max(60_000, WATCHES * 2.4));

  const s = await startProduct({ ...agent, DATABASE_URL: url });
  // What the server arms at start (its own line is info, below LOG_LEVEL=warn).
  const armed = (await q(`SELECT count(*) AS n FROM tasks WHERE state = 'active'`)).rows[0].n as string;
  console.log(`started in ${s.startMs} ms; waiting for the burst at ${new Date(burstAt).toISOString()}`);
  const before = await sizes(q);
  const engineBeforeBurst = before.engine;
  const b = await burst(q, due, seedEnd);
  const after = await sizes(q);
  const reads = await readLatencies(s, seeded.key, seeded.bigTask, Math.min(1000, WATCHES / 10), 10_010);
  const idle = await idleCpu(s);
  const ttfa = await timeToFirstAnswer(s, seeded.key);
  const rss = peakRss(s.child.pid!);
  await stopped(s.child);

  // Retention on the seeded history (runs over 120 days, 90 kept): in process, as the daily job runs it.
  process.env.DATABASE_URL = url;
  const { openDatabase } = await import("../../server/db/index.ts");
  const { pruneExecutions } = await import("../../server/retention.ts");
  const database = await openDatabase({ databaseUrl: url, dataDir: scratch("data-") });
  const list = await listBreakdown(seeded.owner);
  const paged = await pageBreakdown(seeded.owner);
  const pruneStart = Date.now();
  const pruned = await pruneExecutions();
  const pruneMs = Date.now() - pruneStart;
  const kept = Number((await q(`SELECT count(*) AS n FROM executions`)).rows[0].n);
  await database.close();
  await db.end();
  await Promise.all([model.close(), searx.close()]);

  const perExecution = before.executions / before.executionRows;
  const perWatch = before.tasks / before.taskRows;
  const enginePerRun = (after.engine - engineBeforeBurst) / b.of;
  const runsPerDay = WATCHES / 10; // each active watch checks once a day at the seeded cadence
  report(`\n### PostgreSQL, ${WATCHES.toLocaleString("en")} watches (seeded in ${(seedMs / 1000).toFixed(0)} s)\n`);
  report(`| measure | value | baseline / target |\n|---|---:|---:|`);
  report(
    `| start-up (migrations, engine recovery, arming ${armed} active watches) | ${(s.startMs / 1000).toFixed(1)} s | ${(empty.startMs / 1000).toFixed(1)} s empty |`,
  );
  report(
    `| idle CPU over ${IDLE_SECONDS} s | ${idle.toFixed(1)} % of a core | ${idleEmpty.toFixed(1)} % empty (target: within 1 point) |`,
  );
  report(`| burst: ${b.of} due in one minute, ran exactly once | ${b.once}/${b.of} | all |`);
  report(`| burst: start delay p50 / p99 | ${b.p50} / ${b.p99} ms | p99 < 5 s |`);
  for (const [name, r] of reads)
    report(
      `| ${name}, p50 / p99 at 8 connections | ${r.p50} / ${r.p99} ms (${r.rps.toFixed(0)} req/s${r.errors ? `, ${r.errors} errors` : ""}) | p50 < 50 ms |`,
    );
  report(
    `| time to first answer (run_immediately → success in the API), p50 / p99 of 100 | ${ttfa.p50.toFixed(0)} / ${ttfa.p99.toFixed(0)} ms | |`,
  );
  report(`| bytes per execution (table + indexes) | ${perExecution.toFixed(0)} B | |`);
  report(`| bytes per watch | ${perWatch.toFixed(0)} B | |`);
  report(`| engine bytes per run (workflow + steps; kept 7 days) | ${enginePerRun.toFixed(0)} B | |`);
  report(
    `| growth per day at one check per active watch per day (${runsPerDay.toLocaleString("en")} runs): executions; engine, flat after 7 days | ${mb(runsPerDay * perExecution)}; ${mb(runsPerDay * enginePerRun)} | |`,
  );
  report(
    `| database: executions / watches / engine | ${mb(before.executions)} / ${mb(before.tasks)} / ${mb(after.engine)} | |`,
  );
  report(
    `| retention: runs without a finding older than 90 days deleted | ${pruned.executions.toLocaleString("en")} in ${(pruneMs / 1000).toFixed(1)} s (batches of 1,000: ${(pruneMs / Math.max(1, Math.ceil(pruned.executions / 1000))).toFixed(0)} ms each); ${kept.toLocaleString("en")} kept | |`,
  );
  report(`| server peak RSS | ${mb(rss)} | ${mb(rssEmpty)} empty (target < 500 MB) |`);
  report(`\nOne \`GET /api/v1/tasks\` of that user, alone and in process: ${list}`);
  report(`\nA page of 50 of that user's own list with its count, alone and in process (p50 of 20): ${paged}`);
}

/**
 * The postgres phase's seed, then only the own list's pages: at 8 connections, at one, from two replicas, from one
 * start serving from two processes, and alone in process.
 */
async function listPhase(cluster: { url: string }) {
  const [model, searx] = [await modelNow(), await startSearxStub()];
  const agent = { AGENT_MODEL: "openai-compatible:stub", AGENT_BASE_URL: `${model.url}/v1`, SEARXNG_URL: searx.url };
  const url = await freshDatabase(cluster, `scale_list_${Date.now()}`);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const q: Query = (text, values) => db.query(text, values);
  const seedStart = Date.now();
  // Nothing due while the pages are read: the first runs a day out.
  const later = Date.now() + DAY_MS;
  const seeded = await seed(q, { watches: WATCHES, bigWatch: 10, burst: 0, burstAt: later, firstDue: later });
  const seedMs = Date.now() - seedStart;
  const s = await startProduct({ ...agent, DATABASE_URL: url, WATCH_EXECUTOR_ID: "replica-0" });
  const owned = Math.min(1000, WATCHES / 10);
  const rows: [string, Latency][] = [];
  const pages = ownListPages(`${s.url}/api/v1`, owned);
  // A server that stays up has compiled its hot code; one just started spends its first seconds compiling it.
  await latency(pages[0]![1], seeded.key, undefined, WARMUP_SECONDS);
  const alone: Latency[] = [];
  for (const [label, page] of pages) {
    await latency(page, seeded.key); // warm-up
    rows.push([label, await latency(page, seeded.key, s)]);
    alone.push(await latency(page, seeded.key, s, SECONDS, 1));
  }
  // The same pages from a second replica on the same database (docs/deploy.md), the eight connections split between the
  // two as a load balancer would: what a second process buys on the two cores the first leaves one of idle.
  const s2 = await startProduct({ ...agent, DATABASE_URL: url, WATCH_EXECUTOR_ID: "replica-1" });
  const other = (page: string) => page.replace(s.url, s2.url);
  await latency(other(pages[0]![1]), seeded.key, undefined, WARMUP_SECONDS);
  const replicated: Latency[][] = [];
  for (const [, page] of pages) {
    const both = () =>
      Promise.all([latency(page, seeded.key, s, SECONDS, 4), latency(other(page), seeded.key, s2, SECONDS, 4)]);
    await both(); // warm-up
    replicated.push(await both());
  }
  await Promise.all([stopped(s2.child), stopped(s.child)]);
  // The same pages from one start serving from two processes (SERVER_PROCESSES): the same eight connections.
  const sp = await startProduct({ ...agent, DATABASE_URL: url, SERVER_PROCESSES: "2" });
  const ours = (page: string) => page.replace(s.url, sp.url);
  await latency(ours(pages[0]![1]), seeded.key, undefined, WARMUP_SECONDS);
  const twoProcesses: Latency[] = [];
  for (const [, page] of pages) {
    await latency(ours(page), seeded.key); // warm-up
    twoProcesses.push(await latency(ours(page), seeded.key, sp));
  }
  await stopped(sp.child);
  process.env.DATABASE_URL = url;
  const { openDatabase } = await import("../../server/db/index.ts");
  const database = await openDatabase({
    databaseUrl: url,
    dataDir: scratch("data-"),
  });
  const paged = await pageBreakdown(seeded.owner);
  await database.close();
  await db.end();
  await Promise.all([model.close(), searx.close()]);
  report(
    `\n### The own list, PostgreSQL, ${WATCHES.toLocaleString("en")} watches (seeded in ${(seedMs / 1000).toFixed(0)} s)\n`,
  );
  report(`| measure | value | target |\n|---|---:|---:|`);
  for (const [label, r] of rows)
    report(
      `| ${label}, p50 / p99 at 8 connections | ${r.p50} / ${r.p99} ms (${r.rps.toFixed(0)} req/s, the server's CPU ${r.cpu!.toFixed(2)} ms a request${r.errors ? `, ${r.errors} errors` : ""}) | p50 < 50 ms |`,
    );
  const pageName = (i: number) => rows[i]![0].split(" (")[0];
  // One client at a time: what a request waits for when it does not queue behind seven others for the server's core.
  report(`\nThe same pages, one connection (p50 / p99, the server's CPU a request):`);
  report(alone.map((r, i) => `${pageName(i)}: ${r.p50} / ${r.p99} ms (${r.cpu!.toFixed(2)} ms)`).join("; "));
  report(
    `\nThe same pages from two replicas, 4 connections to each (p50 / p99 of each, req/s of both, CPU a request):`,
  );
  report(
    replicated
      .map(
        ([a, b], i) =>
          `${pageName(i)}: ${a!.p50} / ${a!.p99} and ${b!.p50} / ${b!.p99} ms (${(a!.rps + b!.rps).toFixed(0)} req/s; ${a!.cpu!.toFixed(2)} and ${b!.cpu!.toFixed(2)} ms)`,
      )
      .join("; "),
  );
  report(
    `\nThe same pages from one start with SERVER_PROCESSES=2, 8 connections (p50 / p99, req/s, CPU a request of all its processes):`,
  );
  report(
    twoProcesses
      .map((r, i) => `${pageName(i)}: ${r.p50} / ${r.p99} ms (${r.rps.toFixed(0)} req/s; ${r.cpu!.toFixed(2)} ms)`)
      .join("; "),
  );
  report(`\nA page of 50 of that user's own list with its count, alone and in process (p50 of 20): ${paged}`);
}

/**
 * Where one request of the own list spends its time, unloaded and in process: the SQL statement (the database's
 * work and the driver's row parsing), the API view, the output check and JSON.
 */
async function listBreakdown(owner: string) {
  const { findTasks } = await import("../../server/tasks/reads.ts");
  const { ownerTaskView } = await import("../../server/tasks/views.ts");
  const { TaskSchema } = await import("../../server/tasks/schemas.ts");
  const { z } = await import("zod");
  const schema = z.array(TaskSchema);
  const ms = { sql: [] as number[], view: [] as number[], check: [] as number[], json: [] as number[] };
  let bytes = 0;
  let watches = 0;
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    const rows = await findTasks({ userId: owner });
    watches = rows.length;
    const t1 = performance.now();
    const views = rows.map(ownerTaskView);
    const t2 = performance.now();
    const checked = schema.parse(views);
    const t3 = performance.now();
    bytes = JSON.stringify(checked).length;
    const t4 = performance.now();
    if (i < 10) continue; // warm-up
    ms.sql.push(t1 - t0);
    ms.view.push(t2 - t1);
    ms.check.push(t3 - t2);
    ms.json.push(t4 - t3);
  }
  const part = (xs: number[]) => pct(xs, 50).toFixed(0);
  return `SQL ${part(ms.sql)} ms, view ${part(ms.view)} ms, output check ${part(ms.check)} ms, JSON ${part(ms.json)} ms (p50 of 20) for ${watches.toLocaleString("en")} watches, ${(bytes / 1048576).toFixed(1)} MB of JSON`;
}

/** A page of the own list with its count (one statement), alone and in process: p50 of 20, in ms. */
async function pageBreakdown(owner: string) {
  const { pageOfTasks } = await import("../../server/tasks/reads.ts");
  type Filter = Parameters<typeof pageOfTasks>[0];
  const cases: [string, Filter][] = [
    ["attention", { userId: owner }],
    ["attention, q=kernel", { userId: owner, words: ["kernel"] }],
    ["attention, state=failing", { userId: owner, state: "failing" }],
  ];
  const parts: string[] = [];
  for (const [name, filter] of cases) {
    const read: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      await pageOfTasks(filter, { order: "attention", limit: 50 });
      if (i < 10) continue; // warm-up
      read.push(performance.now() - t0);
    }
    parts.push(`${name}: ${pct(read, 50).toFixed(1)} ms`);
  }
  return parts.join("; ");
}

async function pglitePhase(watches: number) {
  const [model, searx] = [await modelNow(), await startSearxStub()];
  const agent = { AGENT_MODEL: "openai-compatible:stub", AGENT_BASE_URL: `${model.url}/v1`, SEARXNG_URL: searx.url };
  const dataDir = scratch("pglite-");
  const env = { ...agent, DATA_DIR: dataDir, DATABASE_URL: "" };
  // The first start creates the database (and is the empty baseline); then the seed goes in with the server stopped.
  const empty = await startProduct(env);
  const idleEmpty = await idleCpu(empty, Math.min(IDLE_SECONDS, 30));
  await stopped(empty.child);
  const { PGlite } = await import("@electric-sql/pglite");
  const { pgliteExtensions } = await import("../../server/db/index.ts");
  const pglite = await PGlite.create(path.join(dataDir, "pglite"), { extensions: await pgliteExtensions() });
  const q: Query = (text, values) => pglite.query(text, values as any[]);
  const burstN = Math.min(1000, watches / 100);
  const seedAt = Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000;
  const seeded = await seed(q, {
    watches,
    bigWatch: Math.min(10_000, watches),
    burst: burstN,
    burstAt: seedAt,
    firstDue: seedAt + 60_000,
  });
  const { burstAt, due } = await shiftBurst(q, seedAt, 2 * 60_000);
  const size = Number((await q(`SELECT pg_database_size(current_database()) AS n`)).rows[0].n);
  await pglite.close();

  const s = await startProduct(env);
  // The server holds the embedded database: the burst is read back through the API once it is over.
  while (Date.now() < burstAt + 60_000 + 30_000) await sleep(1000);
  const reads = await readLatencies(
    s,
    seeded.key,
    seeded.bigTask,
    Math.min(1000, watches / 10),
    Math.min(10_000, watches) + 10,
  );
  const idle = await idleCpu(s, Math.min(IDLE_SECONDS, 30));
  const headers = { authorization: `Bearer ${seeded.key}` };
  let once = 0;
  const delays: number[] = [];
  for (const [id, at] of due) {
    const runs = (await (await fetch(`${s.url}/api/v1/tasks/${id}/executions`, { headers })).json()) as {
      started_at: string;
    }[];
    const recent = runs.filter((r) => Date.parse(r.started_at) > burstAt - 60_000);
    if (recent.length === 1) once++;
    for (const r of recent) delays.push(Date.parse(r.started_at) - at);
  }
  const rss = peakRss(s.child.pid!);
  await stopped(s.child);
  await Promise.all([model.close(), searx.close()]);
  report(`\n### Embedded PGlite, ${watches.toLocaleString("en")} watches (${mb(size)} on disk)\n`);
  report(`| measure | value | empty |\n|---|---:|---:|`);
  report(
    `| start-up (arming ${watches / 10} active watches) | ${(s.startMs / 1000).toFixed(1)} s | ${(empty.startMs / 1000).toFixed(1)} s |`,
  );
  report(
    `| idle CPU over ${Math.min(IDLE_SECONDS, 30)} s | ${idle.toFixed(1)} % of a core | ${idleEmpty.toFixed(1)} % |`,
  );
  report(
    `| burst: ${due.size} due in one minute, ran exactly once; start delay p50 / p99 | ${once}/${due.size}; ${pct(delays, 50)} / ${pct(delays, 99)} ms | |`,
  );
  for (const [name, r] of reads)
    report(`| ${name}, p50 / p99 at 8 connections | ${r.p50} / ${r.p99} ms (${r.rps.toFixed(0)} req/s) | |`);
  report(`| server peak RSS | ${mb(rss)} | |`);
}

async function replicasPhase(cluster: { url: string }) {
  const result: { replicas: number; seconds: number; perSecond: number; once: number }[] = [];
  for (const replicas of [1, 2]) {
    const model = await startModelStub(
      () =>
        decisionFor({
          condition_met: false,
          notify: false,
          notification: null,
          finding_key: null,
          next_run: new Date(Date.now() + DAY_MS).toISOString(),
        }),
      { answerDelayMs: 1000 },
    );
    const searx = await startSearxStub();
    const url = await freshDatabase(cluster, `scale_replicas_${replicas}_${Date.now()}`);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    // A backlog: every watch due at the same moment, once all replicas are up.
    const dueAt = Date.now() + 60_000;
    await db.query(
      `INSERT INTO users (id, clerk_user_id, email) SELECT gen_random_uuid(), 'rep_' || g, 'r' || g || '@example.com' FROM generate_series(0, 99) g`,
    );
    await db.query(
      `INSERT INTO tasks (id, user_id, name, search_query, condition_description, state, next_run)
       SELECT gen_random_uuid(), u.id, 'backlog ' || g, 'backlog ' || g, 'c', 'active', to_timestamp($2 / 1000.0)
         FROM generate_series(0, $1 - 1) g JOIN (SELECT id, row_number() OVER () - 1 AS n FROM users) u ON u.n = g % 100`,
      [BACKLOG, dueAt],
    );
    const env = {
      DATABASE_URL: url,
      AGENT_MODEL: "openai-compatible:stub",
      AGENT_BASE_URL: `${model.url}/v1`,
      SEARXNG_URL: searx.url,
      AGENT_CONCURRENCY: "8",
    };
    const servers = await Promise.all(
      Array.from({ length: replicas }, (_, i) => startProduct({ ...env, WATCH_EXECUTOR_ID: `replica-${i}` })),
    );
    let done = 0;
    while (done < BACKLOG && Date.now() < dueAt + 900_000) {
      await sleep(1000);
      done = Number(
        (await db.query(`SELECT count(DISTINCT task_id) AS n FROM executions WHERE status IN ('success', 'failed')`))
          .rows[0].n,
      );
    }
    await sleep(3000);
    const rows = (await db.query(`SELECT task_id, started_at, completed_at FROM executions`)).rows as {
      task_id: string;
      started_at: Date;
      completed_at: Date | null;
    }[];
    const perTask = new Map<string, number>();
    for (const r of rows) perTask.set(r.task_id, (perTask.get(r.task_id) ?? 0) + 1);
    const first = Math.min(...rows.map((r) => r.started_at.getTime()));
    const last = Math.max(...rows.map((r) => (r.completed_at ?? r.started_at).getTime()));
    const seconds = (last - first) / 1000;
    result.push({
      replicas,
      seconds,
      perSecond: rows.length / seconds,
      once: [...perTask.values()].filter((n) => n === 1).length,
    });
    await Promise.all(servers.map((s) => stopped(s.child)));
    await db.end();
    await Promise.all([model.close(), searx.close()]);
  }
  report(
    `\n### Replicas: ${BACKLOG.toLocaleString("en")} due watches, the model taking 1 s per run, AGENT_CONCURRENCY=8\n`,
  );
  report(`| replicas | drained in | runs/s | ran exactly once |\n|---|---:|---:|---:|`);
  for (const r of result)
    report(`| ${r.replicas} | ${r.seconds.toFixed(0)} s | ${r.perSecond.toFixed(1)} | ${r.once}/${BACKLOG} |`);
  report(
    `\nScaling factor with two replicas: **${(result[1]!.perSecond / result[0]!.perSecond).toFixed(2)}×** (target ≥ 1.8×)`,
  );
}

const cluster =
  PHASES.includes("postgres") || PHASES.includes("replicas") || PHASES.includes("list")
    ? process.env.DATABASE_URL
      ? { url: process.env.DATABASE_URL, remove() {} }
      : await throwawayPostgres()
    : null;
try {
  if (PHASES.includes("postgres")) await postgresPhase(cluster!);
  if (PHASES.includes("list")) await listPhase(cluster!);
  if (PHASES.includes("pglite")) for (const n of PGLITE_SIZES) await pglitePhase(n);
  if (PHASES.includes("replicas")) await replicasPhase(cluster!);
} finally {
  cluster?.remove();
}
console.log(`\n\nbench:scale, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores\n${out.join("\n")}`);
process.exit(0);
