/**
 * npm run bench:api — the API's hot paths against two floors on this machine, on PostgreSQL:
 *   (1) bare node:http + pg, (2) a bare Next.js route handler, (3) the product (as `npm start` runs it),
 * each doing the same key lookup and queries, each warmed up first (BENCH_WARMUP_SECONDS, 15 s: after 2 s both Next.js
 * servers were still compiling, V8 spending about 2 s of CPU on it in the next 8, by --trace-opt; after 15 s, next to
 * none). Prints req/s, p50/p99 latency, ratios,
 * each server's CPU per request (its process tree's, from /proc: robust where req/s moves with what else the machine
 * runs), the database's (the throwaway cluster's processes; blank with DATABASE_URL) and peak server RSS.
 * BENCH_SECONDS (10) and BENCH_ROUNDS (2) shorten a run; BENCH_ONLY=watch (comma list of node,next,watch) runs
 * some servers, BENCH_ENDPOINTS=list (list,get,post) some endpoints; BENCH_SERVER_NODE_ARGS go to the servers' node (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { throwawayPostgres } from "../../tests/helpers/postgres.mjs";
import { benchNodeArgs, productArgs, stopped, treeCpuSeconds, unlimited } from "./product.mjs";
import { benchDatabase, EMAIL_CHANNEL } from "./seed.mts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ONLY = process.env.BENCH_ONLY?.split(",");
const CONNECTIONS = 32;
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 15);

const cluster = process.env.DATABASE_URL ? null : await throwawayPostgres();
const baseUrl = process.env.DATABASE_URL ?? cluster!.url;

process.chdir(root);
const { databaseUrl, db, key, userId } = await benchDatabase(baseUrl, "api");
for (let i = 0; i < 50; i++) {
  const t = await db.query(
    `INSERT INTO tasks (id, user_id, name, search_query, condition_description, state, next_run)
     VALUES (gen_random_uuid(), $1, $2, $3, $3, 'paused', NULL) RETURNING id`,
    [userId, `Watch ${i}`, `query number ${i} about something worth watching`],
  );
  await db.query(`INSERT INTO task_notifications (id, task_id, type, config) VALUES (gen_random_uuid(), $1, $2, $3)`, [
    t.rows[0].id,
    EMAIL_CHANNEL.type,
    EMAIL_CHANNEL.config,
  ]);
}
const oneTask = (await db.query(`SELECT id FROM tasks LIMIT 1`)).rows[0].id as string;

const floorDir = path.join(root, "scripts/bench/next-floor");
// webpack: Turbopack would take the repository root (with the product's instrumentation) as the floor's root.
if (!fs.existsSync(path.join(floorDir, ".next/BUILD_ID")))
  spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build", "--webpack"], {
    cwd: floorDir,
    stdio: "inherit",
  });
if (!fs.existsSync(path.join(root, ".next/BUILD_ID")))
  spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
  });

type Server = { name: string; port: number; child: ChildProcess; prefix: string };
async function start(name: string, args: string[], port: number, prefix: string, cwd = root): Promise<Server> {
  const child = spawn(process.execPath, [...benchNodeArgs, ...args], {
    cwd,
    // The per-user limits (60 writes, 600 reads a minute) would turn the runs into a 429 benchmark.
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      ...unlimited,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  for (let i = 0; i < 600 && !/ready|Ready/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
  return { name, port, child, prefix };
}

const wanted = (id: string) => !ONLY || ONLY.includes(id);
const servers = [
  wanted("node") &&
    (await start("node:http + pg", [path.join(root, "scripts/bench/node-floor.mjs")], 18101, "/api/v1/tasks")),
  wanted("next") &&
    (await start(
      "Next.js route",
      [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", "18102", "-H", "127.0.0.1"],
      18102,
      "/api/tasks",
      floorDir,
    )),
  wanted("watch") && (await start("Watch", productArgs, 18103, "/api/v1/tasks")),
].filter((s): s is Server => !!s);

const endpoints = [
  { id: "list", name: "GET /api/v1/tasks", method: "GET" as const, path: (p: string) => p },
  { id: "get", name: "GET /api/v1/tasks/{id}", method: "GET" as const, path: (p: string) => `${p}/${oneTask}` },
  { id: "post", name: "POST /api/v1/tasks", method: "POST" as const, path: (p: string) => p },
].filter((e) => !process.env.BENCH_ENDPOINTS || process.env.BENCH_ENDPOINTS.split(",").includes(e.id));

/** The throwaway cluster's postmaster, whose process tree is the database's CPU. */
const postmaster = cluster
  ? Number(fs.readFileSync(path.join(cluster.dir, "postmaster.pid"), "utf8").split("\n")[0])
  : 0;
const databaseCpu = () => (postmaster ? treeCpuSeconds(postmaster) : NaN);

type Row = { rps: number[]; p50: number[]; p99: number[]; cpuMs: number[]; dbMs: number[] };
const results = new Map<string, Row>();
for (let round = 1; round <= ROUNDS; round++) {
  for (const ep of endpoints) {
    for (const s of servers) {
      const load = (duration: number) =>
        autocannon({
          url: `http://127.0.0.1:${s.port}${ep.path(s.prefix)}`,
          connections: CONNECTIONS,
          duration,
          method: ep.method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body:
            ep.method === "POST"
              ? JSON.stringify({ name: "bench-post", search_query: "benchmark watch", state: "paused" })
              : undefined,
        });
      // Unmeasured warm-up: lazily loaded route code, JIT, the first (bcrypt) check of the key.
      if (round === 1) await load(WARMUP_SECONDS);
      const cpuBefore = treeCpuSeconds(s.child.pid!);
      const dbBefore = databaseCpu();
      const r = await load(DURATION);
      const cpuMs = ((treeCpuSeconds(s.child.pid!) - cpuBefore) * 1000) / r.requests.total;
      const dbMs = ((databaseCpu() - dbBefore) * 1000) / r.requests.total;
      if (r.non2xx) console.warn(`${s.name} ${ep.name}: ${r.non2xx} non-2xx responses`);
      const k = `${ep.name}|${s.name}`;
      const row = results.get(k) ?? { rps: [], p50: [], p99: [], cpuMs: [], dbMs: [] };
      row.rps.push(r.requests.average);
      row.cpuMs.push(cpuMs);
      row.dbMs.push(dbMs);
      row.p50.push(r.latency.p50);
      row.p99.push(r.latency.p99);
      results.set(k, row);
      if (ep.method === "POST") await db.query(`DELETE FROM tasks WHERE name = 'bench-post'`);
      process.stdout.write(".");
    }
  }
}

const rss = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  `\n\n${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} interleaved rounds, 50 watches, PostgreSQL\n`,
);
console.log(
  "| endpoint | server | req/s | p50 ms | p99 ms | vs node:http | vs Next.js | CPU ms/req | Next.js's CPU/req ÷ this | database CPU ms/req |",
);
console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const ep of endpoints) {
  const base = (name: string) => avg(results.get(`${ep.name}|${name}`)?.rps ?? [NaN]);
  const nextCpu = avg(results.get(`${ep.name}|Next.js route`)?.cpuMs ?? [NaN]);
  for (const s of servers) {
    const r = results.get(`${ep.name}|${s.name}`)!;
    const rps = avg(r.rps);
    const cpu = avg(r.cpuMs);
    console.log(
      `| ${ep.name} | ${s.name} | ${rps.toFixed(0)} | ${avg(r.p50).toFixed(1)} | ${Math.max(...r.p99).toFixed(1)} | ${(rps / base("node:http + pg")).toFixed(2)}× | ${(rps / base("Next.js route")).toFixed(2)}× | ${cpu.toFixed(2)} | ${(nextCpu / cpu).toFixed(2)}× | ${avg(r.dbMs).toFixed(2)} |`,
    );
  }
}
console.log("\npeak RSS (MB): " + servers.map((s) => `${s.name} ${rss(s.child.pid!).toFixed(0)}`).join(", "));
// Each server shuts down before the database goes away (the product's engine logs every connection it loses).
await Promise.all(servers.map((s) => stopped(s.child)));
await db.end();
cluster?.remove();
process.exit(0);
