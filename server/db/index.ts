/**
 * One database, two ways to get it: PostgreSQL at DATABASE_URL, or the embedded PGlite in DATA_DIR.
 * PGlite is a single-session database, so it is served over a Unix socket in DATA_DIR and every client (Prisma,
 * the durable-execution engine) connects through it: its query queue keeps their transactions apart, and
 * the rest of the code sees plain Postgres either way. The embedded database is the service's own: no TCP port, and
 * DATA_DIR, its files and the socket are the owner's only (0700 and 0600). One rule follows: inside
 * `db.$transaction(async (tx) => …)` use only `tx` (and never wait on another client): the embedded database runs one
 * transaction at a time.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/client";
import { log } from "../observability/log.mjs";
import { timestampTypes } from "./timestamps";

export type Database = {
  url: string;
  embedded: boolean;
  prisma: PrismaClient;
  /** The connection pool under Prisma's adapter, for the SQL reads of `./sql`. */
  pool: pg.Pool;
  /**
   * `./sql` sends no named prepared statement: to the embedded database, whose one session serves every pooled
   * connection (a name prepared on one exists on all), or with `pgbouncer=true` on the URL (as for Prisma: a
   * transaction-mode pooler hands each statement to any server connection, where a prepared one may not exist).
   */
  unprepared: boolean;
  /**
   * The pool's connections send a statement without waiting for the answer to the one before (node-postgres's
   * pipeline mode), so a transaction's statements that need nothing from each other go in one round trip (`./sql`).
   * Not to the embedded database (its socket serves one session to every connection) nor through `pgbouncer=true`.
   */
  pipelined: boolean;
  close(): Promise<void>;
};

const g = globalThis as unknown as { __watchDb?: Database; __watchDbOpening?: Promise<Database> };

const lockFileOf = (dataDir: string) => path.join(path.resolve(dataDir), "server.pid");

/**
 * Where a running server hands out snapshots of its embedded database (`npm run db:backup`): a Unix socket in the
 * data directory, readable by its owner only. Relative when the absolute path is too long for a socket address.
 */
export function snapshotSocketOf(dataDir: string) {
  const full = path.join(path.resolve(dataDir), "snapshot.sock");
  return full.length < 100 ? full : path.relative(process.cwd(), full);
}

/** The process holding the embedded database in `dataDir` (a running server, or a backup), or null. */
export function embeddedHolder(dataDir: string): number | null {
  const lockFile = lockFileOf(dataDir);
  const holder = Number(fs.existsSync(lockFile) ? fs.readFileSync(lockFile, "utf8") : 0);
  return holder && holder !== process.pid && isAlive(holder) ? holder : null;
}

/** Takes the embedded database in `dataDir` for this process (one process at a time); returns the release. */
export function lockEmbedded(dataDir: string) {
  const holder = embeddedHolder(dataDir);
  if (holder)
    throw new Error(`The embedded database in ${dataDir} is in use by process ${holder}. Stop it or set DATA_DIR.`);
  const lockFile = lockFileOf(dataDir);
  fs.mkdirSync(path.dirname(lockFile), { recursive: true, mode: 0o700 });
  fs.writeFileSync(lockFile, String(process.pid));
  return () => fs.rmSync(lockFile, { force: true });
}

/**
 * The process's file mode mask while it holds an embedded database, as PostgreSQL's own server sets it: what it creates
 * beside the database (its lock file, a data directory) is the owner's only. Returns the restore.
 */
export function privateFiles() {
  const previous = process.umask(0o077);
  return () => void process.umask(previous);
}

/**
 * DATA_DIR and everything in it made the owner's only: directories 0700, files 0600 (a data directory from an older
 * version was 0755 with 0644 files). What this process may not change (a volume's root owned by another user) is said
 * once.
 */
function privateDataDir(dataDir: string) {
  const root = path.resolve(dataDir);
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const refused: string[] = [];
  const fix = (p: string, st: fs.Stats) => {
    const mode = st.isDirectory() ? 0o700 : 0o600;
    if ((st.mode & 0o777) === mode) return;
    try {
      fs.chmodSync(p, mode);
    } catch {
      refused.push(p);
    }
  };
  const visit = (p: string) => {
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink()) return;
    fix(p, st);
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) visit(path.join(p, e));
  };
  visit(root);
  if (refused.length)
    log.warn(
      `${refused.length} file(s) in ${dataDir} stay readable by others (this process may not change their mode, e.g. ${refused[0]}): make DATA_DIR this user's own`,
    );
  return root;
}

/** Where PostgreSQL clients look for a server in a socket directory (`host=<dir>`, default port). */
const SOCKET_NAME = ".s.PGSQL.5432";
/** A Unix socket's path is at most 107 bytes on Linux (103 on macOS). */
const SOCKET_PATH_MAX = 103;

/**
 * Serves a PGlite database as plain PostgreSQL on a Unix socket in `dir` (by default a private directory of its own),
 * readable and writable by this user only; no TCP port. Clients connect with `host=<dir>` in the URL (the URL's
 * `localhost` only satisfies parsers that want a host name). A directory whose path is too long for a socket address
 * is reached through a short private link to it.
 */
export async function serveEmbedded(pglite: import("@electric-sql/pglite").PGlite, dir?: string) {
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const own = dir ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), "watch-db-"));
  let host = path.resolve(dir ?? own!);
  let link: string | undefined;
  if (path.join(host, SOCKET_NAME).length > SOCKET_PATH_MAX) {
    link = fs.mkdtempSync(path.join(os.tmpdir(), "watch-db-"));
    fs.symlinkSync(host, path.join(link, "d"));
    host = path.join(link, "d");
  }
  const socketPath = path.join(host, SOCKET_NAME);
  // Left by a process that was killed (the caller holds the data directory: no other server is on it).
  fs.rmSync(socketPath, { force: true });
  const server = new PGLiteSocketServer({ db: pglite, path: socketPath, maxConnections: 100 });
  await server.start();
  fs.chmodSync(socketPath, 0o600);
  const url = new URL("postgresql://postgres@localhost/postgres");
  url.searchParams.set("host", host);
  return {
    url: url.toString(),
    async stop() {
      await server.stop();
      fs.rmSync(socketPath, { force: true });
      for (const d of [link, own]) if (d) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

/**
 * Hands a consistent copy of the running embedded database to whoever connects to the snapshot socket: its data
 * directory as a tar archive, taken between two statements (the database is paused only for the copy in memory).
 */
async function serveSnapshots(pglite: import("@electric-sql/pglite").PGlite, dataDir: string) {
  const net = await import("node:net");
  const socketPath = snapshotSocketOf(dataDir);
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    (async () => {
      await pglite.exec("CHECKPOINT");
      const tar = await pglite.dumpDataDir("none");
      socket.end(Buffer.from(await tar.arrayBuffer()));
    })().catch(() => socket.destroy());
  });
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(socketPath, resolve));
  } finally {
    process.umask(umask);
  }
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      fs.rmSync(socketPath, { force: true });
    });
}

export type EmbeddedOptions = {
  /**
   * PostgreSQL's `shared_buffers` (e.g. "16MB"; its default 128MB when unset). PGlite clears them at every start:
   * at 128MB, about half a CPU-second and 140 MB of memory more than at 16MB.
   */
  sharedBuffers?: string;
};

/**
 * The embedded database in `dataDir` (created when new), for the process that holds its lock, with DATA_DIR and
 * every file in it the owner's only: those PGlite made while it started are fixed once it has, and it makes every
 * later one so itself.
 */
export async function openEmbedded(dataDir: string, opts: EmbeddedOptions = {}) {
  const root = path.resolve(dataDir);
  const dir = path.join(root, "pglite");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = await PGlite.create(dir, {
    extensions: await pgliteExtensions(),
    startParams: [
      ...PGlite.defaultStartParams,
      ...(opts.sharedBuffers ? ["-c", `shared_buffers=${opts.sharedBuffers}`] : []),
    ],
  });
  ownerOnlyModes(pglite);
  privateDataDir(root);
  return pglite;
}

type SetAttr = { setattr(node: unknown, attr: { mode?: number | null }): unknown };

/**
 * PGlite's file system layer sets each file's mode itself after creating it, past the process's umask: 0666 for the
 * files of a new database, 0644 for those PostgreSQL opens with fopen (its relation cache's init file). From here on
 * it sets the owner's bits only.
 */
function ownerOnlyModes(pglite: import("@electric-sql/pglite").PGlite) {
  const nodefs = (pglite as unknown as { mod?: { FS?: { filesystems?: { NODEFS?: Record<string, SetAttr> } } } }).mod
    ?.FS?.filesystems?.NODEFS;
  if (!nodefs?.node_ops || !nodefs.stream_ops) {
    log.warn("PGlite's file modes cannot be narrowed in this version: files it creates may be readable by others");
    return;
  }
  for (const ops of [nodefs.node_ops, nodefs.stream_ops]) {
    const setattr = ops.setattr.bind(ops);
    ops.setattr = (node, attr) => setattr(node, attr.mode == null ? attr : { ...attr, mode: attr.mode & ~0o077 });
  }
}

async function startEmbedded(dataDir: string, opts: EmbeddedOptions) {
  const restoreUmask = privateFiles();
  let unlock: (() => void) | undefined;
  try {
    unlock = lockEmbedded(dataDir);
    const pglite = await openEmbedded(dataDir, opts);
    const served = await serveEmbedded(pglite, path.resolve(dataDir));
    const stopSnapshots = await serveSnapshots(pglite, dataDir);
    return {
      url: served.url,
      async close() {
        await stopSnapshots();
        await served.stop();
        await pglite.close();
        unlock!();
        restoreUmask();
      },
    };
  } catch (e) {
    unlock?.();
    restoreUmask();
    throw e;
  }
}

/** The PostgreSQL extensions the migrations create, which PGlite must load to run them (`pg_trgm`: public search). */
export async function pgliteExtensions() {
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  return { pg_trgm };
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function createPrisma(url: string, pipeline: boolean, poolSize = 10) {
  // Prisma's adapter passes parsers of its own with each query; these are the plain SQL's (`./sql`).
  const pool = new pg.Pool({ connectionString: url, max: poolSize, pipeline, types: timestampTypes });
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool),
    // Under load a transaction queues for a pooled connection behind plain queries; Prisma's default wait (2 s)
    // turned bursts into 500s.
    transactionOptions: { maxWait: 10_000, timeout: 15_000 },
  });
  return { prisma, pool };
}

/** Opens the database (once per process); `prepare` runs on its URL before clients connect (migrations). */
export function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  embedded?: EmbeddedOptions;
  prepare?: (url: string) => Promise<void>;
}): Promise<Database> {
  return (g.__watchDbOpening ??= (async () => {
    const embedded = opts.databaseUrl ? undefined : await startEmbedded(opts.dataDir, opts.embedded ?? {});
    const url = opts.databaseUrl ?? embedded!.url;
    await opts.prepare?.(url);
    const pooler = /[?&]pgbouncer=true(&|$)/.test(url);
    const pipelined = !embedded && !pooler;
    const { prisma, pool } = createPrisma(url, pipelined);
    const database: Database = {
      url,
      embedded: !!embedded,
      prisma,
      pool,
      unprepared: !!embedded || pooler,
      pipelined,
      async close() {
        await prisma.$disconnect();
        await pool.end();
        await embedded?.close();
        g.__watchDb = undefined;
        g.__watchDbOpening = undefined;
      },
    };
    g.__watchDb = database;
    return database;
  })());
}

export function database(): Database {
  if (!g.__watchDb) throw new Error("database not opened (openDatabase runs at server start)");
  return g.__watchDb;
}

/** The Prisma client of the open database. */
export const db: PrismaClient = new Proxy({} as PrismaClient, {
  get: (_target, prop) => Reflect.get(database().prisma, prop),
});

export * from "./generated/client";
