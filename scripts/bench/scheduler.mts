/**
 * npm run bench:scheduler — 1,000 active watches due within one minute on PostgreSQL, the agent answered at
 * once by a local stub model. Prints executions/s, start delay against next_run (p50/p99), engine overhead per
 * execution (run time minus model time) beside a bare baseline (the same database writes in a plain loop),
 * whether every watch ran exactly once, and the server's peak RSS. BENCH_WATCHES sets the number of watches,
 * BENCH_SPREAD_SECONDS (40) how long the due times spread over (0: all due at once, e.g. BENCH_WATCHES=200 for the
 * burst of 200 due at the same instant), BENCH_LEAD_SECONDS (20) the time from seeding to the first due run (start-up must end before it, or CPU and
 * statements of the start-up are counted: the run says so);
 * SQL statements per execution (pg_stat_statements) and the engine workflows by name are printed too.
 * BENCH_WARMUP_WATCHES (1000) more watches run first, due over BENCH_WARMUP_SECONDS (40), and are not counted: a fresh
 * process spends its first thousand runs compiling (V8 optimises a few hundred functions on its helper threads, several
 * ms of CPU a run), which a server that stays up pays once. BENCH_WARMUP_WATCHES=0 measures the cold runs, as before.
 * BENCH_SERVER_NODE_ARGS go to the server's node (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { migrateDatabase } from "../../server/db/schema-engine.ts";
import { decisionFor, startModelStub, startSearxStub } from "../../tests/helpers/stubs/model.ts";
import { throwawayPostgres } from "../../tests/helpers/postgres.mjs";
import { benchNodeArgs, productArgs, stopped } from "./product.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WATCHES = Number(process.env.BENCH_WATCHES ?? 1000);
// Server start-up (arming every watch) happens before the first one is due: on a busy machine give it longer.
const LEAD_MS = Number(process.env.BENCH_LEAD_SECONDS ?? 20) * 1000;
/** Due times spread over this long; BENCH_SPREAD_SECONDS=0 makes every watch due at the same instant (a burst). */
const SPREAD_MS = Number(process.env.BENCH_SPREAD_SECONDS ?? 40) * 1000;
const WARMUP = Number(process.env.BENCH_WARMUP_WATCHES ?? 1000);
const WARMUP_MS = WARMUP ? Number(process.env.BENCH_WARMUP_SECONDS ?? 40) * 1000 : 0;

const cluster = process.env.DATABASE_URL
  ? null
  : await throwawayPostgres({ settings: "-c shared_preload_libraries=pg_stat_statements" });
const admin = new pg.Client({ connectionString: process.env.DATABASE_URL ?? cluster!.url });
await admin.connect();
const dbName = `watch_sched_${Date.now()}`;
await admin.query(`CREATE DATABASE ${dbName}`);
await admin.end();
const url = new URL(process.env.DATABASE_URL ?? cluster!.url);
url.pathname = `/${dbName}`;
const databaseUrl = url.toString();
process.chdir(root);
await migrateDatabase(databaseUrl);

const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
// Statements per run, the engine's included: pg_stat_statements (loaded in the throwaway cluster; with DATABASE_URL
// only where the server preloads it).
const countsStatements = await db.query(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`).then(
  () => db.query(`SELECT pg_stat_statements_reset()`).then(() => true),
  () => false,
);
/** Statements this database ran since the reset, but the benchmark's own (its progress and result reads). */
const statements = async () =>
  (
    await db.query(
      `SELECT calls::int, query FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND query NOT LIKE '%count(DISTINCT task_id)%' AND query NOT LIKE '%pg_stat_statements%'
        ORDER BY calls DESC`,
    )
  ).rows as { calls: number; query: string }[];
const userId = (
  await db.query(
    `INSERT INTO users (id, clerk_user_id, email) VALUES (gen_random_uuid(), 'user_sched', 's@example.com') RETURNING id`,
  )
).rows[0].id;

// Baseline: the writes of one run (claim, record, re-arm), in a plain loop.
const baselineTask = (
  await db.query(
    `INSERT INTO tasks (id, user_id, name, search_query, condition_description, state) VALUES (gen_random_uuid(), $1, 'b', 'b', 'b', 'paused') RETURNING id`,
    [userId],
  )
).rows[0].id;
const baselineStart = performance.now();
for (let i = 0; i < 200; i++) {
  await db.query("BEGIN");
  await db.query(`SELECT id FROM tasks WHERE id = $1 FOR UPDATE`, [baselineTask]);
  const e = (
    await db.query(
      `INSERT INTO executions (id, task_id, status) VALUES (gen_random_uuid(), $1, 'running') RETURNING id`,
      [baselineTask],
    )
  ).rows[0].id;
  await db.query(`UPDATE tasks SET last_execution_id = $2 WHERE id = $1`, [baselineTask, e]);
  await db.query("COMMIT");
  await db.query("BEGIN");
  await db.query(`SELECT id FROM tasks WHERE id = $1 FOR UPDATE`, [baselineTask]);
  await db.query(`UPDATE executions SET status = 'success', completed_at = now(), result = $2 WHERE id = $1`, [
    e,
    JSON.stringify({ condition_met: false }),
  ]);
  await db.query(`UPDATE tasks SET next_run = now() + interval '6 hours', last_known_state = '{}' WHERE id = $1`, [
    baselineTask,
  ]);
  await db.query("COMMIT");
}
const baselineMs = (performance.now() - baselineStart) / 200;

/** `count` watches due over `spreadMs` from `from`, by id. */
async function seed(count: number, from: number, spreadMs: number, prefix: string) {
  const at = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const dueAt = from + Math.floor((i * spreadMs) / count);
    const id = (
      await db.query(
        `INSERT INTO tasks (id, user_id, name, search_query, condition_description, state, next_run) VALUES (gen_random_uuid(), $1, $2, $3, $3, 'active', $4) RETURNING id`,
        [userId, `${prefix}${i}`, `bench query ${i}`, new Date(dueAt)],
      )
    ).rows[0].id;
    at.set(id, dueAt);
  }
  return at;
}
const warmupAt = Date.now() + LEAD_MS;
const warmup = await seed(WARMUP, warmupAt, WARMUP_MS, "warm");
// The measured watches come due once the warm-up's have run (each takes well under a second).
const t0 = warmupAt + (WARMUP ? WARMUP_MS + 10_000 : 0);
const due = await seed(WATCHES, t0, SPREAD_MS, "w");
const dueIds = [...due.keys()];
/** How many of `ids` have a finished run. */
const finished = async (ids: string[]) =>
  Number(
    (
      await db.query(
        `SELECT count(DISTINCT task_id) AS n FROM executions WHERE status IN ('success','failed') AND task_id = ANY($1::uuid[])`,
        [ids],
      )
    ).rows[0].n,
  );

// Every tenth watch finds something to notify; no watch has a channel, so no run may start a delivery.
const model = await startModelStub((query) =>
  /0$/.test(query)
    ? decisionFor()
    : {
        condition_met: false,
        answer: "Nothing yet.",
        evidence: "",
        confidence: 0.5,
        sources: [],
        notify: false,
        notification: null,
        finding_key: null,
        next_run: new Date(Date.now() + 6 * 3_600_000).toISOString(),
        next_run_reason: "later",
        done: false,
        state: {},
      },
);
const searx = await startSearxStub();
const server = spawn(process.execPath, [...benchNodeArgs, ...productArgs], {
  cwd: root,
  env: {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: "18110",
    HOSTNAME: "127.0.0.1",
    AGENT_MODEL: "openai-compatible:stub",
    AGENT_BASE_URL: `${model.url}/v1`,
    SEARXNG_URL: searx.url,
    LOG_LEVEL: "warn",
  },
  stdio: ["ignore", "pipe", "inherit"],
});
server.stdout!.on("data", () => {});

// The server's CPU time (user + system, clock ticks of 10 ms) from the first due run to the end.
const cpuTicks = () =>
  fs
    .readFileSync(`/proc/${server.pid}/stat`, "utf8")
    .split(") ")[1]!
    .split(" ")
    .slice(11, 13)
    .reduce((a, b) => a + Number(b), 0);
// CPU and statements count from the first measured run, or from readiness when start-up (arming every watch) ran late.
const ready = async () => (await fetch("http://127.0.0.1:18110/api/health/ready").catch(() => null))?.status === 200;
while (Date.now() < warmupAt || !(await ready())) await new Promise((r) => setTimeout(r, 100));
const lateStart = Date.now() - warmupAt;
if (lateStart > 1000)
  console.log(
    `server ready ${(lateStart / 1000).toFixed(1)} s after the first due run: start delays include that, CPU and statements miss the runs before (raise BENCH_LEAD_SECONDS)`,
  );
while (Date.now() < t0) await new Promise((r) => setTimeout(r, 100));
const warmedUp = WARMUP ? await finished([...warmup.keys()]) : 0;
if (warmedUp < WARMUP)
  console.log(`only ${warmedUp} of ${WARMUP} warm-up runs finished before the measured ones: CPU counts the rest`);
const cpuAtStart = cpuTicks();
const measuredFrom = Date.now();
if (countsStatements) await db.query(`SELECT pg_stat_statements_reset()`);
const deadline = t0 + SPREAD_MS + 120_000;
let done = 0;
while (Date.now() < deadline) {
  done = await finished(dueIds);
  process.stdout.write(`\r${done}/${WATCHES} runs finished`);
  if (done >= WATCHES) break;
  await new Promise((r) => setTimeout(r, 1000));
}
await new Promise((r) => setTimeout(r, 3000)); // let any duplicate show up
const cpuTicksAtEnd = cpuTicks();
const statementRows = countsStatements ? await statements() : [];
const workflows = (
  await db.query(
    `SELECT name, count(*)::int AS n FROM dbos.workflow_status WHERE created_at >= $1 GROUP BY name ORDER BY n DESC`,
    [measuredFrom],
  )
).rows as { name: string; n: number }[];

const rows = (
  await db.query(
    `SELECT task_id, status, started_at, completed_at, (result->>'duration_ms')::int AS model_ms FROM executions WHERE task_id = ANY($1::uuid[])`,
    [dueIds],
  )
).rows as { task_id: string; status: string; started_at: Date; completed_at: Date; model_ms: number | null }[];
const notified = Number(
  (
    await db.query(
      `SELECT count(*) AS n FROM executions WHERE notification IS NOT NULL AND task_id = ANY($1::uuid[])`,
      [dueIds],
    )
  ).rows[0].n,
);
const perTask = new Map<string, number>();
for (const r of rows) perTask.set(r.task_id, (perTask.get(r.task_id) ?? 0) + 1);
const exactlyOnce = [...due.keys()].filter((id) => perTask.get(id) === 1).length;
const delays = rows.map((r) => r.started_at.getTime() - due.get(r.task_id)!).sort((a, b) => a - b);
const overhead = rows
  .filter((r) => r.completed_at)
  .map((r) => r.completed_at.getTime() - r.started_at.getTime() - (r.model_ms ?? 0));
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const first = Math.min(...rows.map((r) => r.started_at.getTime()));
const last = Math.max(...rows.map((r) => (r.completed_at ?? r.started_at).getTime()));
const cpuMsPerRun = ((cpuTicksAtEnd - cpuAtStart) * 10) / rows.length;
const rss = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const avgOverhead = overhead.reduce((a, b) => a + b, 0) / overhead.length;

console.log(
  `\n\n${WATCHES} watches due over ${SPREAD_MS / 1000} s after ${WARMUP} warm-up runs, PostgreSQL, embedded DBOS driver, stub model\n`,
);
console.log(`| metric | value |\n|---|---:|`);
console.log(
  `| ran exactly once | ${exactlyOnce}/${WATCHES} (executions: ${rows.length}, failed: ${rows.filter((r) => r.status === "failed").length}) |`,
);
console.log(
  `| executions/s (first start to last completion) | ${(rows.length / ((last - first) / 1000)).toFixed(1)} |`,
);
console.log(`| start delay vs next_run p50 / p99 | ${pct(delays, 50)} ms / ${pct(delays, 99)} ms |`);
console.log(`| engine overhead per execution (run minus model) | ${avgOverhead.toFixed(1)} ms |`);
console.log(
  `| bare baseline (same writes, plain loop) | ${baselineMs.toFixed(1)} ms (overhead ${(avgOverhead / baselineMs).toFixed(1)}×) |`,
);
console.log(`| server CPU per execution (user + system) | ${cpuMsPerRun.toFixed(1)} ms |`);
console.log(`| server peak RSS | ${rss.toFixed(0)} MB |`);
const totalStatements = statementRows.reduce((a, r) => a + r.calls, 0);
console.log(
  countsStatements
    ? `| SQL statements per execution (engine included, from the first due run to the end) | ${(totalStatements / rows.length).toFixed(1)} |`
    : `| SQL statements per execution | not counted (pg_stat_statements is not loaded) |`,
);
console.log(`| runs that notified a finding (every tenth watch; no watch has a channel) | ${notified} |`);
console.log(
  `| engine workflows by name (the runs, their next wake-ups; no delivery expected) | ${workflows.map((w) => `${w.name} ${w.n}`).join(", ")} |`,
);
if (countsStatements) {
  console.log(`\nStatements per execution, most frequent first:`);
  for (const r of statementRows.slice(0, 25))
    console.log(`${(r.calls / rows.length).toFixed(2).padStart(6)}  ${r.query.replace(/\s+/g, " ").slice(0, 150)}`);
}
await stopped(server);
await db.end();
await Promise.all([model.close(), searx.close()]);
cluster?.remove();
process.exit(0);
