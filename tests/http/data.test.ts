/**
 * The operator's data commands on a server of their own (embedded database): `npm run db:backup` while the server
 * runs (a file of the owner's only, also over an existing one), `db:restore` into an empty database (the same watches
 * and runs come back; a backup altered since leaves nothing loaded), and `db:move` into PostgreSQL, verified table by
 * table before it says `moved`. In the Postgres tier (DATABASE_URL) the move goes into a fresh database of that
 * cluster, a server then runs on it, and a PostgreSQL backup is restored into another; without it, the move goes into
 * an embedded database served as PostgreSQL. The embedded database is the service's own: no TCP port but the HTTP
 * one, DATA_DIR 0700 and its files 0600 (fixed at start for a directory that was not).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import zlib from "node:zlib";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type Res } from "../helpers/api";
import { waitFor } from "../helpers/wait";
import { freshDataDir, root, startServer, tempDir, TEST_NODE_FLAGS, type RunningServer } from "../helpers/server";
import { pgliteExtensions, serveEmbedded } from "@/server/db";

type Run = { code: number | null; out: string };

/** Runs `npm run db:<command>` (its script, directly) with only the variables given. */
function dataCommand(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [path.join(root, "node_modules/tsx/dist/cli.mjs"), ...TEST_NODE_FLAGS, "scripts/db-data.mts", ...args],
      {
        cwd: root,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as unknown as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.once("exit", (code) => resolve({ code, out }));
  });
}

const at =
  (srv: RunningServer) =>
  <T = any>(method: string, p: string, body?: unknown): Promise<Res<T>> =>
    call<T>(method, p, { base: srv.url, body });

/** What must survive a copy: each watch with its settings and its runs. */
async function contents(srv: RunningServer) {
  const api = at(srv);
  const tasks = (await api("GET", "/api/v1/tasks")).body as Record<string, any>[];
  return Promise.all(
    tasks.map(async (t) => ({
      id: t.id,
      name: t.name,
      search_query: t.search_query,
      condition_description: t.condition_description,
      state: t.state,
      is_public: t.is_public,
      notifications: t.notifications,
      next_run: t.next_run,
      runs: ((await api("GET", `/api/v1/tasks/${t.id}/executions`)).body as Record<string, any>[]).map((e) => ({
        id: e.id,
        status: e.status,
        error_message: e.error_message,
      })),
    })),
  );
}

const EMBEDDED = { SERVICE_NOAUTH: "1", DATABASE_URL: undefined };
/**
 * The embedded database's own tests (its socket and modes, backup and restore) run the same with or without
 * DATABASE_URL: the Postgres tier runs only the move into its cluster, which the first tier ran into an embedded one.
 */
const embeddedOnly = it.skipIf(!!process.env.DATABASE_URL);

describe("backup, restore and move", () => {
  let server: RunningServer;
  let original: Awaited<ReturnType<typeof contents>>;
  const backupFile = path.join(tempDir("watch-data-"), "watch.backup");

  beforeAll(async () => {
    // A data directory anyone could read, as older versions left it: the server makes it its own at start.
    const dataDir = freshDataDir();
    for (const { file, dir } of walk(dataDir)) fs.chmodSync(file, dir ? 0o755 : 0o644);
    server = await startServer(EMBEDDED, { dataDir });
    const api = at(server);
    const ids: string[] = [];
    for (const [i, q] of ["Postgres 19 beta", "iPhone 18 release date", "PyCon 2027 tickets"].entries()) {
      const created = await api("POST", "/api/v1/tasks", {
        search_query: q,
        condition_description: `condition ${i}`,
        notifications: [{ type: "webhook", url: "http://127.0.0.1:9/hook" }],
        run_immediately: i === 0,
      });
      expect(created.status).toBe(200);
      ids.push(created.body.id);
    }
    // No model is configured: the run is recorded failed, a row of its own in the copy.
    await waitFor(
      "the first run",
      async () => (await api("GET", `/api/v1/tasks/${ids[0]}`)).body.last_execution?.status === "failed",
    );
    // Paused, so that no run comes due while the copies start (each would add a run the original has not).
    for (const id of ids) expect((await api("PUT", `/api/v1/tasks/${id}`, { state: "paused" })).status).toBe(200);
    original = await contents(server);
    expect(original).toHaveLength(3);
    expect(original.flatMap((t) => t.runs).length).toBeGreaterThanOrEqual(1);
  });

  afterAll(async () => {
    await server?.kill();
  });

  embeddedOnly(
    "serves the embedded database to itself only: no TCP port but HTTP, DATA_DIR 0700, its files 0600",
    async () => {
      expect(listeningTcpPorts(server.process.pid!)).toEqual([server.port]);
      const socket = path.join(server.dataDir, ".s.PGSQL.5432");
      expect(fs.statSync(socket).isSocket()).toBe(true);
      expect(modes(server.dataDir)).toEqual({ dirs: [0o700], files: [0o600] });
    },
  );

  embeddedOnly(
    "backs up the running server, and restores it into an empty database: the same watches and runs",
    async () => {
      // Over an existing file anyone could read: the backup is the owner's only all the same.
      fs.writeFileSync(backupFile, "an older file");
      fs.chmodSync(backupFile, 0o644);
      const backup = await dataCommand(["backup", backupFile], { DATA_DIR: server.dataDir });
      expect(backup.out).toMatch(/^backed up \d+ rows of \d+ tables to /m);
      expect(backup.code).toBe(0);
      expect(fs.statSync(backupFile).mode & 0o777).toBe(0o600);
      // Written after the copy: not in it.
      expect(
        (await at(server)("POST", "/api/v1/tasks", { search_query: "After the backup", state: "paused" })).status,
      ).toBe(200);

      const dataDir = tempDir("watch-data-");
      const restored = await dataCommand(["restore", backupFile], { DATA_DIR: dataDir });
      expect(restored.out).not.toMatch(/MISMATCH/);
      expect(restored.out).toMatch(/^ {2}public\.tasks +3 rows {2}ok$/m);
      expect(restored.out).toMatch(/^restored .* \(\d+ tables, [\d.]+ s, peak memory \d+ MB\)$/m);
      expect(restored.code).toBe(0);
      expect(modes(dataDir)).toEqual({ dirs: [0o700], files: [0o600] });

      const copy = await startServer(EMBEDDED, { dataDir });
      try {
        expect(await contents(copy)).toEqual(original);
      } finally {
        await copy.stop();
      }
    },
    300_000,
  );

  embeddedOnly(
    "restores nothing of a backup altered since it was taken, and says why",
    async () => {
      const lines = zlib.gunzipSync(fs.readFileSync(backupFile)).toString("utf8").split("\n");
      const row = lines.findIndex((l) => l.includes('"search_query":"PyCon 2027 tickets"'));
      expect(row).toBeGreaterThan(0);
      lines[row] = lines[row]!.replace("PyCon 2027 tickets", "PyCon 2027 tickets, altered");
      const tampered = path.join(tempDir("watch-data-"), "tampered.backup");
      fs.writeFileSync(tampered, zlib.gzipSync(lines.join("\n")));

      const dataDir = tempDir("watch-data-");
      const restored = await dataCommand(["restore", tampered], { DATA_DIR: dataDir });
      expect(restored.out).toMatch(/^ {2}public\.tasks +3 rows {2}MISMATCH/m);
      expect(restored.out).toMatch(
        /^restore failed: 1 table\(s\) do not match the row count and checksum of the source \(public\.tasks\): nothing was loaded$/m,
      );
      expect(restored.code).toBe(1);
      // Migrated, and empty: a good copy can still be restored into it.
      const { PGlite } = await import("@electric-sql/pglite");
      const pglite = await PGlite.create(path.join(dataDir, "pglite"), { extensions: await pgliteExtensions() });
      try {
        const counts = await pglite.query<{ tasks: number; users: number; executions: number }>(
          `SELECT (SELECT count(*)::int FROM tasks) AS tasks, (SELECT count(*)::int FROM users) AS users,
                (SELECT count(*)::int FROM executions) AS executions`,
        );
        expect(counts.rows[0]).toEqual({ tasks: 0, users: 0, executions: 0 });
      } finally {
        await pglite.close();
      }
    },
    300_000,
  );

  it("refuses to move while the server runs, then moves into PostgreSQL verified table by table", async () => {
    const target = await emptyPostgres();
    const embeddedTarget = target ? null : await embeddedPostgres();
    const to = target ?? embeddedTarget!.url;
    try {
      const running = await dataCommand(["move", "--to", to], { DATA_DIR: server.dataDir });
      expect(running.out).toMatch(/move failed: The server \(process \d+\) is running on the embedded database/);
      expect(running.code).toBe(1);

      const expected = await contents(server);
      expect(await server.stop()).toBe(0);
      const moved = await dataCommand(["move", "--to", to], { DATA_DIR: server.dataDir });
      expect(moved.out).not.toMatch(/MISMATCH/);
      expect(moved.out).toMatch(new RegExp(`^ {2}public\\.tasks +${expected.length} rows {2}ok$`, "m"));
      expect(moved.out).toMatch(/^ {2}public\.executions +\d+ rows {2}ok$/m);
      expect(moved.out).toMatch(/^moved \(\d+ tables, [\d.]+ s, peak memory \d+ MB\)$/m);
      expect(moved.code).toBe(0);
      // Into a database that is no longer empty: refused.
      const twice = await dataCommand(["move", "--to", to], { DATA_DIR: server.dataDir });
      expect(twice.out).toMatch(/move failed: The target database is not empty/);

      if (!target) return;
      // The Postgres tier: a server runs on the moved database, and its backup restores into another one.
      const onPostgres = await startServer({ SERVICE_NOAUTH: "1", DATABASE_URL: target });
      try {
        expect(await contents(onPostgres)).toEqual(expected);
        const pgBackup = path.join(tempDir("watch-data-"), "pg.backup");
        const backup = await dataCommand(["backup", pgBackup], { DATABASE_URL: target });
        expect(backup.code).toBe(0);
        const other = (await emptyPostgres())!;
        const restored = await dataCommand(["restore", pgBackup], { DATABASE_URL: other });
        expect(restored.out).not.toMatch(/MISMATCH/);
        expect(restored.code).toBe(0);
      } finally {
        await onPostgres.stop();
      }
    } finally {
      await embeddedTarget?.stop();
    }
  }, 300_000);
});

/** Every file and directory under `dir` (itself included) with its permission bits; one removed meanwhile is left out. */
function walk(dir: string): { file: string; dir: boolean; mode: number }[] {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return [];
  const entry = { file: dir, dir: st.isDirectory(), mode: st.mode & 0o777 };
  if (!entry.dir) return [entry];
  const names = (() => {
    try {
      return fs.readdirSync(dir);
    } catch {
      return [];
    }
  })();
  return [entry, ...names.flatMap((e) => walk(path.join(dir, e)))];
}

/** The distinct permission bits of the directories and of the files under `dir`. */
function modes(dir: string) {
  const all = walk(dir);
  const distinct = (dirs: boolean) => [...new Set(all.filter((e) => e.dir === dirs).map((e) => e.mode))];
  return { dirs: distinct(true), files: distinct(false) };
}

/** The TCP ports a process and its children listen on: their sockets (/proc/PID/fd) in the LISTEN state. */
function listeningTcpPorts(pid: number): number[] {
  const family = (p: number): number[] => [
    p,
    ...fs
      .readdirSync(`/proc/${p}/task`)
      .flatMap((t) => fs.readFileSync(`/proc/${p}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean))
      .flatMap((c) => family(Number(c))),
  ];
  const sockets = new Set<string>();
  for (const p of family(pid))
    for (const fd of fs.readdirSync(`/proc/${p}/fd`)) {
      const target = (() => {
        try {
          return fs.readlinkSync(`/proc/${p}/fd/${fd}`);
        } catch {
          return "";
        }
      })();
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) sockets.add(inode);
    }
  const ports = new Set<number>();
  for (const table of ["tcp", "tcp6"])
    for (const line of fs.readFileSync(`/proc/${pid}/net/${table}`, "utf8").trim().split("\n").slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state === "0A" && sockets.has(inode!)) ports.add(parseInt(local!.split(":")[1]!, 16));
    }
  return [...ports];
}

/** An empty in-memory embedded database served as PostgreSQL (the move's target when no PostgreSQL is at hand). */
async function embeddedPostgres() {
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = await PGlite.create({ extensions: await pgliteExtensions() });
  const served = await serveEmbedded(pglite);
  return {
    url: served.url,
    async stop() {
      await served.stop();
      await pglite.close();
    },
  };
}

/** A new, empty database on the Postgres tier's cluster (DATABASE_URL); null without one. */
async function emptyPostgres(): Promise<string | null> {
  const base = process.env.DATABASE_URL;
  if (!base) return null;
  const { default: pg } = await import("pg");
  const name = `watch_moved_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}
