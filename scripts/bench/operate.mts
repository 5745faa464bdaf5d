/**
 * npm run bench:operate — what operating Watch costs, on PostgreSQL, 1,000 watches (each with a channel and a last run):
 *   - the paged own list (`GET /api/v1/tasks?limit=50`) at 8 connections: p50, and the server's CPU per request;
 *   - the same with tracing on (OTLP/HTTP to a local receiver that accepts, counts and drops) against off,
 *     interleaved, and the bytes of traces exported per request;
 *   - a /metrics scrape (latency, one at a time);
 *   - db:backup of that database, db:restore into an embedded one, db:move from it into an empty PostgreSQL: the time
 *     and peak memory each command prints.
 * BENCH_SECONDS (8) and BENCH_ROUNDS (3) shorten or lengthen a run. The CPU may be shared: the server's CPU time per
 * request (from /proc) is the figure to compare; the load average is printed with the results.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { throwawayPostgres } from "../../tests/helpers/postgres.mjs";
import { benchNodeArgs, productArgs, stopped, unlimited } from "./product.mjs";
import { benchDatabase, EMAIL_CHANNEL, emptyDatabase } from "./seed.mts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WATCHES = 1000;
const CONNECTIONS = 8;

const cluster = process.env.DATABASE_URL ? null : await throwawayPostgres();
const baseUrl = process.env.DATABASE_URL ?? cluster!.url;
/** Servers started so far: a failed run leaves neither them nor the throwaway cluster behind. */
const children: ReturnType<typeof spawn>[] = [];
process.on("exit", () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  cluster?.remove();
});

process.chdir(root);
const { databaseUrl, db, key, userId } = await benchDatabase(baseUrl, "operate");
await db.query(
  `WITH t AS (
     INSERT INTO tasks (id, user_id, name, search_query, condition_description, state, next_run, created_at)
     SELECT gen_random_uuid(), $1, 'Watch ' || i, 'query number ' || i || ' about something worth watching', 'it happens',
            'paused', NULL, now() - make_interval(secs => i)
       FROM generate_series(1, $2::int) i RETURNING id),
   n AS (INSERT INTO task_notifications (id, task_id, type, config) SELECT gen_random_uuid(), id, $3, $4 FROM t)
   INSERT INTO executions (id, task_id, status, condition_met, started_at, completed_at, result)
   SELECT gen_random_uuid(), id, 'success', false, now() - interval '1 hour', now() - interval '59 minutes',
          jsonb_build_object('condition_met', false, 'answer', 'Not yet: nothing announced so far.',
                             'evidence', 'The project page lists no date.', 'confidence', 0.8, 'model', 'stub',
                             'usage', jsonb_build_object('input_tokens', 1800, 'output_tokens', 220), 'duration_ms', 2400)
     FROM t`,
  [userId, WATCHES, EMAIL_CHANNEL.type, EMAIL_CHANNEL.config],
);
await db.query(
  `UPDATE tasks t SET last_execution_id = e.id FROM executions e WHERE e.task_id = t.id AND t.user_id = $1`,
  [userId],
);

if (!fs.existsSync(path.join(root, ".next/BUILD_ID")))
  spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { stdio: "inherit" });

// An OTLP/HTTP receiver that accepts and drops every export, counting what it was sent.
let exported = 0;
const receiver = http.createServer((req, res) => {
  req.on("data", (chunk: Buffer) => (exported += chunk.length));
  req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const otlp = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

let stopping = false;
type Server = { name: string; port: number; pid: number; child: ReturnType<typeof spawn> };
async function start(name: string, port: number, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, [...benchNodeArgs, ...productArgs], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      LOG_LEVEL: "warn",
      ...unlimited,
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.once("exit", (code, signal) => {
    if (!stopping) console.error(`${name} exited (${code ?? signal}):\n${out}`);
  });
  // Ready when readiness says so (LOG_LEVEL=warn keeps the start-up line out of the output).
  const ready = async () =>
    (await fetch(`http://127.0.0.1:${port}/api/health/ready`).catch(() => null))?.status === 200;
  for (let i = 0; i < 1200 && !(await ready()); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await ready())) throw new Error(`${name} did not start:\n${out}`);
  return { name, port, pid: child.pid!, child };
}

/** User + system CPU seconds of a process so far. */
function cpuSeconds(pid: number) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const off = await start("tracing off", 18201, {});
const on = await start("tracing on", 18202, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp });
const servers = [off, on];

type Row = { p50: number[]; rps: number[]; cpuMs: number[] };
const results = new Map<string, Row>(servers.map((s) => [s.name, { p50: [], rps: [], cpuMs: [] }]));
/** Requests answered by each server, warm-up included: what its exports are divided by. */
const answered = new Map<string, number>();
const load = async (s: Server, duration: number) => {
  const r = await autocannon({
    url: `http://127.0.0.1:${s.port}/api/v1/tasks?limit=50`,
    connections: CONNECTIONS,
    duration,
    headers: { authorization: `Bearer ${key}` },
  });
  answered.set(s.name, (answered.get(s.name) ?? 0) + r.requests.total);
  return r;
};
// The seeded rows must be a list the API answers: otherwise every figure below would time an error.
for (const s of servers) {
  const r = await fetch(`http://127.0.0.1:${s.port}/api/v1/tasks?limit=50`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (r.status !== 200) throw new Error(`${s.name}: the list answered ${r.status}: ${(await r.text()).slice(0, 500)}`);
}
for (const s of servers) await load(s, 2); // warm-up: route code, JIT, the key's first bcrypt check
const loadAverages: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  // Interleaved, and the order alternates: neither side always runs first.
  for (const s of round % 2 ? servers : [...servers].reverse()) {
    const before = cpuSeconds(s.pid);
    const r = await load(s, DURATION);
    const cpu = cpuSeconds(s.pid) - before;
    if (r.non2xx) console.warn(`${s.name}: ${r.non2xx} non-2xx responses`);
    const row = results.get(s.name)!;
    row.p50.push(r.latency.p50);
    row.rps.push(r.requests.average);
    row.cpuMs.push((cpu * 1000) / Math.max(1, r.requests.total));
    loadAverages.push(os.loadavg()[0]!);
    process.stdout.write(".");
  }
}

// /metrics, one scrape at a time.
const scrapes: number[] = [];
for (let i = 0; i < 50; i++) {
  const t = performance.now();
  const r = await fetch(`http://127.0.0.1:${off.port}/metrics`);
  await r.text();
  scrapes.push(performance.now() - t);
}
stopping = true;
await Promise.all(servers.map((s) => stopped(s.child)));
receiver.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  `\n\nGET /api/v1/tasks?limit=50 of ${WATCHES} watches, ${CONNECTIONS} connections, ${DURATION} s × ${ROUNDS} interleaved rounds, PostgreSQL; load average during the runs ${avg(loadAverages).toFixed(1)} on ${os.cpus().length} CPUs\n`,
);
console.log("| server | p50 ms (median of rounds) | req/s | server CPU ms / request |");
console.log("|---|---:|---:|---:|");
for (const s of servers) {
  const r = results.get(s.name)!;
  console.log(`| ${s.name} | ${median(r.p50).toFixed(1)} | ${avg(r.rps).toFixed(0)} | ${avg(r.cpuMs).toFixed(2)} |`);
}
const ratio = avg(results.get(on.name)!.cpuMs) / avg(results.get(off.name)!.cpuMs);
console.log(`\ntracing on / off, CPU per request: ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)} %)`);
// Stopping flushed the spans still buffered, so every request's are counted.
console.log(`traces exported per request: ${(exported / answered.get(on.name)!).toFixed(0)} bytes`);
console.log(`/metrics scrape: p50 ${median(scrapes).toFixed(1)} ms, max ${Math.max(...scrapes).toFixed(1)} ms`);

// The data commands on the same 1,000 watches.
function dataCommand(args: string[], env: Record<string, string>) {
  const r = spawnSync(
    process.execPath,
    [path.join(root, "node_modules/tsx/dist/cli.mjs"), "scripts/db-data.mts", ...args],
    {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as unknown as NodeJS.ProcessEnv,
      encoding: "utf8",
    },
  );
  const out = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`db:${args[0]} failed:\n${out}`);
  return out.split("\n").find((l) => /^(backed up|restored|moved)\b/.test(l))!;
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), "watch-bench-data-"));
const file = path.join(work, "bench.backup");
console.log(`\ndb:backup  ${dataCommand(["backup", file], { DATABASE_URL: databaseUrl })}`);
const dataDir = path.join(work, "data");
console.log(`db:restore ${dataCommand(["restore", file], { DATA_DIR: dataDir })}`);
console.log(
  `db:move    ${dataCommand(["move", "--to", await emptyDatabase(baseUrl, "moved")], { DATA_DIR: dataDir })}`,
);
fs.rmSync(work, { recursive: true, force: true });

await db.end();
process.exit(0);
