/**
 * npm run db:backup -- FILE       a consistent copy of the database into FILE (gzipped JSON lines): DATABASE_URL's,
 *                                 else the embedded one in DATA_DIR, also while the server runs (through its
 *                                 snapshot socket)
 * npm run db:restore -- FILE      loads FILE into an empty database (DATABASE_URL, else the embedded one in DATA_DIR;
 *                                 no server running on it), migrated first, then verified table by table
 * npm run db:move -- --to URL     copies the embedded database in DATA_DIR (server stopped) into the empty PostgreSQL
 *                                 at URL, verifies every table's row count and checksum, and says `moved`
 * The engine's pending work (wake-ups, deliveries waiting out a retry or quiet hours) is copied with the watches.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import nextEnv from "@next/env";
import type { PGlite } from "@electric-sql/pglite";
import {
  embeddedHolder,
  lockEmbedded,
  openEmbedded,
  pgliteExtensions,
  privateFiles,
  serveEmbedded,
  snapshotSocketOf,
} from "../server/db/index.ts";
import { migrateDatabase } from "../server/db/schema-engine.ts";
import {
  connect,
  CopyMismatch,
  listTables,
  load,
  readBackup,
  readSnapshot,
  schemaVersions,
  writeBackup,
  type Client,
  type Summed,
  type Verification,
} from "../server/db/transfer.ts";

nextEnv.loadEnvConfig(process.cwd(), false, { info() {}, error: console.error });
const dataDir = process.env.DATA_DIR || "./.data";
const started = Date.now();
// As the server: whatever this command writes (an embedded database, a backup) is the owner's only.
privateFiles();

type Opened = { url: string; embedded: boolean; close: () => Promise<void> };

/** Reads a running server's snapshot of its embedded database (a tar of its data directory). */
function fetchSnapshot(socketPath: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    net
      .connect(socketPath)
      .on("data", (c: Buffer) => chunks.push(c))
      .on("end", () => resolve(Buffer.concat(chunks)))
      .on("error", (e) => reject(new Error(`The running server's snapshot socket did not answer: ${e.message}`)));
  });
}

/** A PGlite database served to this command's clients on a private Unix socket (in `dir`, else a directory of its own). */
async function servePglite(pglite: PGlite, dir?: string, release: () => void = () => {}): Promise<Opened> {
  const served = await serveEmbedded(pglite, dir);
  return {
    url: served.url,
    embedded: true,
    async close() {
      await served.stop();
      await pglite.close();
      release();
    },
  };
}

/** The embedded database in DATA_DIR, taken for this command (no server on it). */
async function openDataDir(opts: { create: boolean }): Promise<Opened> {
  if (!opts.create && !fs.existsSync(path.resolve(dataDir, "pglite", "PG_VERSION")))
    throw new Error(`There is no embedded database in ${dataDir}.`);
  const release = lockEmbedded(dataDir);
  try {
    return await servePglite(await openEmbedded(dataDir), path.resolve(dataDir), release);
  } catch (e) {
    release();
    throw e;
  }
}

/** The embedded database in DATA_DIR, as a source: the running server's snapshot, or the directory itself. */
async function embeddedSource(opts: { whileRunning: boolean }): Promise<Opened> {
  const holder = embeddedHolder(dataDir);
  if (!holder) return openDataDir({ create: false });
  if (!opts.whileRunning)
    throw new Error(
      `The server (process ${holder}) is running on the embedded database in ${dataDir}: stop it first, so that nothing is written after the copy.`,
    );
  const tar = await fetchSnapshot(snapshotSocketOf(dataDir));
  const { PGlite } = await import("@electric-sql/pglite");
  const extensions = await pgliteExtensions();
  return servePglite(await PGlite.create({ loadDataDir: new Blob([new Uint8Array(tar)]), extensions }));
}

/** The database to load into: DATABASE_URL (or `url`), else the embedded one in DATA_DIR (no server on it). */
async function target(url = process.env.DATABASE_URL): Promise<Opened> {
  if (url) return { url, embedded: false, close: async () => {} };
  return openDataDir({ create: true });
}

/** The schema the server would create at its first start: the service's migrations and the engine's tables. */
async function migrate(db: Opened) {
  await migrateDatabase(db.url);
  const { ensureSystemDatabase } = await import("@dbos-inc/dbos-sdk/internal/system_database");
  const quiet = { info() {}, debug() {}, warn: console.warn, error: console.error };
  // LISTEN/NOTIFY only on PostgreSQL, as the server sets its engine up.
  await ensureSystemDatabase(db.url, quiet as never, undefined, "dbos", !db.embedded);
}

/** The copy must come from this version of Watch or an older one: a newer one's schema may not load here. */
async function checkVersions(to: Client, from: { migrations: string[]; engine_version: number }) {
  const here = await schemaVersions(to);
  const unknown = from.migrations.filter((m) => !here.migrations.includes(m));
  if (unknown.length || from.engine_version > here.engine_version)
    throw new Error(
      `The copy comes from a newer version of Watch (migrations ${unknown.join(", ") || "of its engine"}): restore it with that version.`,
    );
}

function printReport(report: Verification["report"]) {
  const width = Math.max(...report.map((r) => r.table.length));
  for (const r of report) {
    const ok = r.actual.rows === r.expected.rows && r.actual.checksum === r.expected.checksum;
    console.log(
      `  ${r.table.padEnd(width)}  ${String(r.actual.rows).padStart(9)} rows  ${ok ? "ok" : `MISMATCH (expected ${r.expected.rows} rows, checksum ${r.expected.checksum}; found ${r.actual.checksum})`}`,
    );
  }
}

/** Loads a copy verified table by table (inside its transaction: a copy that differs leaves nothing), and says so. */
async function loadVerified(
  to: Client,
  tables: Parameters<typeof load>[1],
  rowsOf: Parameters<typeof load>[2],
  expected: () => Summed[],
  done: string,
) {
  let verification: Verification;
  try {
    verification = await load(to, tables, rowsOf, expected);
  } catch (e) {
    if (e instanceof CopyMismatch) printReport(e.verification.report);
    throw e;
  }
  printReport(verification.report);
  const mb = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(
    `${done} (${verification.report.length} tables, ${((Date.now() - started) / 1000).toFixed(1)} s, peak memory ${mb} MB)`,
  );
}

async function backup(file: string) {
  const source = process.env.DATABASE_URL
    ? await target(process.env.DATABASE_URL)
    : await embeddedSource({ whileRunning: true });
  const client = await connect(source.url);
  try {
    const header = await writeBackup(client, file);
    const rows = header.tables.reduce((n, t) => n + t.rows, 0);
    const size = (fs.statSync(file).size / 1e6).toFixed(1);
    console.log(
      `backed up ${rows} rows of ${header.tables.length} tables to ${file} (${size} MB, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  } finally {
    await client.end();
    await source.close();
  }
}

async function restore(file: string) {
  const { header, rows } = await readBackup(file);
  const db = await target();
  try {
    await migrate(db);
    const client = await connect(db.url);
    try {
      await checkVersions(client, header);
      await loadVerified(
        client,
        header.tables,
        rows,
        () => header.tables,
        `restored ${file} (taken ${header.created_at})`,
      );
    } finally {
      await client.end();
    }
  } finally {
    await db.close();
  }
}

async function move(to: string) {
  if (!/^postgres(ql)?:\/\//.test(to)) throw new Error("--to takes a PostgreSQL URL: postgres://user:password@host/db");
  const source = await embeddedSource({ whileRunning: false });
  try {
    const db = await target(to);
    await migrate(db);
    const [from, into] = [await connect(source.url), await connect(db.url)];
    try {
      await checkVersions(into, await schemaVersions(from));
      const tables = await listTables(from);
      let summed: Summed[] = [];
      await loadVerified(
        into,
        tables,
        (each) =>
          readSnapshot(from, {
            start: async (snapshot) => void (summed = snapshot.tables),
            rows: (index, rows) => each(summed[index]!, rows),
          }).then(() => undefined),
        () => summed,
        "moved",
      );
      console.log(
        `Set DATABASE_URL to ${to.replace(/\/\/[^@/]*@/, "//…@")} and start the server; ${dataDir} is no longer used (keep it until you are sure).`,
      );
    } finally {
      await from.end();
      await into.end();
    }
  } finally {
    await source.close();
  }
}

const [command, ...args] = process.argv.slice(2);
const usage = `usage: npm run db:backup -- FILE | npm run db:restore -- FILE | npm run db:move -- --to postgres://…`;
try {
  if (command === "backup" && args[0]) await backup(args[0]);
  else if (command === "restore" && args[0]) {
    if (!fs.existsSync(args[0])) throw new Error(`No such file: ${args[0]}`);
    await restore(args[0]);
  } else if (command === "move" && args[0] === "--to" && args[1]) await move(args[1]);
  else {
    console.error(usage);
    process.exitCode = 2;
  }
} catch (e) {
  console.error(`${command} failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
}
