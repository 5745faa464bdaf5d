/**
 * The operator's data commands on a server of their own (embedded database): `npm run db:backup` while the server
 * runs, `db:restore` into an empty database (the same watches and runs come back), and `db:move` into PostgreSQL,
 * verified table by table before it says `moved`. In the Postgres tier (DATABASE_URL) the move goes into a fresh
 * database of that cluster, a server then runs on it, and a PostgreSQL backup is restored into another; without it,
 * the move goes into an embedded database served as PostgreSQL.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type Res } from "../helpers/api";
import { waitFor } from "../helpers/wait";
import { root, startServer, type RunningServer } from "../helpers/server";
import { pgliteExtensions, serveEmbedded } from "@/server/db";

type Run = { code: number | null; out: string };

/** Runs `npm run db:<command>` (its script, directly) with only the variables given. */
function dataCommand(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [path.join(root, "node_modules/tsx/dist/cli.mjs"), "scripts/db-data.mts", ...args],
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

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "watch-data-"));
const EMBEDDED = { SERVICE_NOAUTH: "1", DATABASE_URL: undefined };

describe("backup, restore and move", () => {
  let server: RunningServer;
  let original: Awaited<ReturnType<typeof contents>>;
  const backupFile = path.join(tempDir(), "watch.backup");

  beforeAll(async () => {
    server = await startServer(EMBEDDED);
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

  it("backs up the running server, and restores it into an empty database: the same watches and runs", async () => {
    const backup = await dataCommand(["backup", backupFile], { DATA_DIR: server.dataDir });
    expect(backup.out).toMatch(/^backed up \d+ rows of \d+ tables to /m);
    expect(backup.code).toBe(0);
    expect(fs.statSync(backupFile).mode & 0o077).toBe(0); // the owner's only
    // Written after the copy: not in it.
    expect(
      (await at(server)("POST", "/api/v1/tasks", { search_query: "After the backup", state: "paused" })).status,
    ).toBe(200);

    const dataDir = tempDir();
    const restored = await dataCommand(["restore", backupFile], { DATA_DIR: dataDir });
    expect(restored.out).not.toMatch(/MISMATCH/);
    expect(restored.out).toMatch(/^ {2}public\.tasks +3 rows {2}ok$/m);
    expect(restored.out).toMatch(/^restored .* \(\d+ tables, [\d.]+ s, peak memory \d+ MB\)$/m);
    expect(restored.code).toBe(0);

    const copy = await startServer(EMBEDDED, { dataDir });
    try {
      expect(await contents(copy)).toEqual(original);
    } finally {
      await copy.stop();
    }
  }, 300_000);

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
        const pgBackup = path.join(tempDir(), "pg.backup");
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
