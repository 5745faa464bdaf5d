/** Starts the built server (scripts/start.mjs) on a free port with a fresh embedded database. */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../..");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export type RunningServer = {
  url: string;
  /** The server's own database (Postgres tier); undefined on the embedded database. */
  databaseUrl?: string;
  port: number;
  dataDir: string;
  process: ChildProcess;
  output: () => string;
  /** SIGTERM and wait for exit. */
  stop: () => Promise<number | null>;
  /** SIGKILL and wait for exit. */
  kill: () => Promise<void>;
};

/**
 * What a server's first start leaves (the database created and migrated, the engine's tables made): a data directory,
 * or a PostgreSQL database in the Postgres tier, named by this variable. Made once per run, in-process
 * (tests/template-setup.ts); each fresh server and in-process test database starts on a copy of it, which saves the
 * ~7 s of a first start on PGlite.
 */
export const TEMPLATE = "WATCH_TEST_TEMPLATE";

/**
 * The embedded database's shared buffers in tests: PGlite clears them at every start (at the default 128MB, about
 * half a CPU-second and 140 MB of memory more), and a run opens some 60 databases. Test databases stay far smaller.
 */
export const TEST_SHARED_BUFFERS = "16MB";

/**
 * Node.js flags of every process in the suite that runs the embedded database (test servers, test workers): its
 * WebAssembly compiled by V8's baseline compiler (Liftoff) only. By default V8 also recompiles the hot functions of
 * PostgreSQL's WebAssembly with its optimising compiler (TurboFan) on background threads, which pays back in a process
 * that runs for days, not in one that lives for a test file: a server's start 6.2 → 4.3–4.9 CPU-seconds, and four of
 * the heaviest HTTP files (largest answers, data, MCP, robustness) 181 → 120 CPU-seconds, the unit and in-process
 * tiers 179 → 140. What runs is the same code.
 */
export const TEST_NODE_FLAGS = ["--liftoff-only"];

/**
 * The run's directory for temporary ones: made by the first process of a run to load this (Vitest's own, for its global
 * setup) and removed when that process exits. Test workers inherit it, since Vitest may stop a worker before the
 * worker's own exit handler runs.
 */
const RUN_DIR = "WATCH_TEST_RUN_DIR";
if (!process.env[RUN_DIR]) {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "watch-test-run-"));
  process.env[RUN_DIR] = runDir;
  process.once("exit", () => fs.rmSync(runDir, { recursive: true, force: true }));
}

/**
 * The temporary directories this process made (data directories, CLI configs, backups), removed when it exits if it
 * gets to: a run makes some 60 data directories of ~40 MB each.
 */
const madeDirs: string[] = [];
process.once("exit", () => {
  for (const dir of madeDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A new directory in the run's directory, removed when this process exits or else with the run's directory. */
export function tempDir(prefix = "watch-test-") {
  const dir = fs.mkdtempSync(path.join(process.env[RUN_DIR]!, prefix));
  madeDirs.push(dir);
  return dir;
}

export function freshDataDir() {
  const dir = tempDir();
  const template = process.env.DATABASE_URL ? undefined : process.env[TEMPLATE];
  if (template) fs.cpSync(template, dir, { recursive: true });
  return dir;
}

/** With DATABASE_URL set (the Postgres tier), each server gets a fresh database on that cluster. */
export async function freshDatabaseUrl(): Promise<string | undefined> {
  const base = process.env.DATABASE_URL;
  if (!base) return undefined;
  const { default: pg } = await import("pg");
  const name = `watch_test_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  const template = process.env[TEMPLATE];
  await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
  await client.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** What this test file's servers cost: how many starts, and their CPU time (read just before each is stopped). */
export const serverUsage = { starts: 0, cpuMs: 0 };
function addCpuOf(child: ChildProcess) {
  try {
    const fields = fs.readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    serverUsage.cpuMs += (Number(fields[11]) + Number(fields[12])) * 10; // user + system, in ticks of 10 ms
  } catch {
    // Gone already, or not Linux: not counted.
  }
}

/** Servers this process started: a test that fails or times out mid-restart must not leave one running. */
const running = new Set<ChildProcess>();
process.once("exit", () => running.forEach((child) => child.kill("SIGKILL")));

export async function startServer(
  env: Record<string, string | undefined> = {},
  opts: { dataDir?: string; port?: number } = {},
): Promise<RunningServer> {
  const databaseUrl = "DATABASE_URL" in env ? env.DATABASE_URL : await freshDatabaseUrl();
  const dataDir = opts.dataDir ?? freshDataDir();
  for (;;) {
    const port = opts.port ?? (await freePort());
    try {
      return await launch({ ...env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }, dataDir, port);
    } catch (e) {
      // A free port found here can be taken by another test file's server before this one listens: take another.
      if (opts.port || !/listen EADDRINUSE/.test(String(e))) throw e;
    }
  }
}

/** Where test servers keep the code cache of the modules they load (./compile-cache.mjs): one per build of this checkout. */
const compileCaches = path.join(
  os.tmpdir(),
  `watch-test-compile-cache-${crypto.createHash("sha1").update(root).digest("hex").slice(0, 8)}`,
);
const buildId = () => fs.readFileSync(path.join(root, ".next/BUILD_ID"), "utf8").trim();

async function launch(env: Record<string, string | undefined>, dataDir: string, port: number) {
  const databaseUrl = env.DATABASE_URL;
  let out = "";
  serverUsage.starts++;
  const child = spawn(process.execPath, [...TEST_NODE_FLAGS, path.join(root, "scripts/start.mjs")], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      DATA_DIR: dataDir,
      WEBHOOK_ALLOW_PRIVATE: "1",
      EMBEDDED_SHARED_BUFFERS: TEST_SHARED_BUFFERS,
      WATCH_TEST_COMPILE_CACHE: path.join(compileCaches, buildId()),
      ...env,
      NODE_OPTIONS: [`--import ${path.join(import.meta.dirname, "compile-cache.mjs")}`, env.NODE_OPTIONS]
        .filter(Boolean)
        .join(" "),
    } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  // A start takes seconds on an idle machine, minutes on one busy with other suites and builds.
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${out}`);
    if (/Watch ready on/.test(out)) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const server: RunningServer = {
    url,
    databaseUrl,
    port,
    dataDir,
    process: child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) {
        addCpuOf(child);
        child.kill("SIGTERM");
      }
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null) {
        addCpuOf(child);
        child.kill("SIGKILL");
      }
      await exited;
    },
  };
  return server;
}

/**
 * `next build` unless a build newer than every source file exists; says why it builds (it takes a minute or two). One
 * build per process however often it is asked for: the HTTP tier starts it before making the database template, so
 * the two run side by side, and awaits it before starting a server.
 */
export function ensureBuild(): Promise<void> {
  const g = globalThis as { __watchTestBuild?: Promise<void> };
  return (g.__watchTestBuild ??= build());
}

async function build() {
  const buildId = path.join(root, ".next/BUILD_ID");
  const builtAt = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
  const newest = newestSource([
    "app",
    "server",
    "channels",
    "lib",
    "emails",
    "inngest",
    "prisma",
    "instrumentation.ts",
    "proxy.ts",
    "next.config.mjs",
  ]);
  if (builtAt > newest.at) return pruneCompileCaches();
  console.log(
    builtAt
      ? `HTTP tests: ${path.relative(root, newest.file)} changed since the last production build: running next build first.`
      : "HTTP tests: no production build yet: running next build first.",
  );
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
    // Types are `npm run typecheck`'s to check (CI runs it beside the tests), not each test build's again.
    env: { ...process.env, NODE_ENV: "production", WATCH_BUILD_SKIP_TYPECHECK: "1" },
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error("next build failed");
  console.log(`next build took ${Math.round((Date.now() - started) / 1000)} s`);
  pruneCompileCaches();
}

/** The code caches of earlier builds are of no more use. */
function pruneCompileCaches() {
  const current = buildId();
  for (const e of fs.existsSync(compileCaches) ? fs.readdirSync(compileCaches) : [])
    if (e !== current) fs.rmSync(path.join(compileCaches, e), { recursive: true, force: true });
}

function newestSource(entries: string[]) {
  const newest = { at: 0, file: "" };
  const visit = (p: string) => {
    if (!fs.existsSync(p)) return;
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      if (p.endsWith("generated")) return;
      for (const e of fs.readdirSync(p)) visit(path.join(p, e));
    } else if (st.mtimeMs > newest.at) Object.assign(newest, { at: st.mtimeMs, file: p });
  };
  for (const e of entries) visit(path.join(root, e));
  return newest;
}

/** Starts a new server on the same data as `previous` (same DATA_DIR, or the same Postgres database). */
export function startAgain(previous: RunningServer, env: Record<string, string | undefined> = {}) {
  return startServer(
    { ...env, ...(previous.databaseUrl ? { DATABASE_URL: previous.databaseUrl } : {}) },
    { dataDir: previous.dataDir },
  );
}
