/**
 * One database, two ways to get it: PostgreSQL at DATABASE_URL, or the embedded PGlite in DATA_DIR.
 * PGlite is a single-session database, so it is served over a loopback socket and every client (Prisma,
 * the durable-execution engine) connects through it: its query queue keeps their transactions apart, and
 * the rest of the code sees plain Postgres either way. One rule follows: inside `db.$transaction(async (tx) => …)`
 * use only `tx` (and never wait on another client): the embedded database runs one transaction at a time.
 */
import fs from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/client";

export type Database = {
  url: string;
  embedded: boolean;
  prisma: PrismaClient;
  /** The connection pool under Prisma's adapter, for the SQL reads of `./sql`. */
  pool: pg.Pool;
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
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  fs.writeFileSync(lockFile, String(process.pid));
  return () => fs.rmSync(lockFile, { force: true });
}

/** A PGlite database served over a loopback socket, as plain PostgreSQL to every client. */
export async function serveEmbedded(pglite: import("@electric-sql/pglite").PGlite) {
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const server = new PGLiteSocketServer({ db: pglite, host: "127.0.0.1", port: 0, maxConnections: 100 });
  await server.start();
  return { url: `postgresql://postgres@${server.getServerConn()}/postgres`, stop: () => server.stop() };
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

async function startEmbedded(dataDir: string) {
  const dir = path.resolve(dataDir, "pglite");
  fs.mkdirSync(dir, { recursive: true });
  const unlock = lockEmbedded(dataDir);
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = await PGlite.create(dir, { extensions: await pgliteExtensions() });
  const served = await serveEmbedded(pglite);
  const stopSnapshots = await serveSnapshots(pglite, dataDir);
  return {
    url: served.url,
    async close() {
      await stopSnapshots();
      await served.stop();
      await pglite.close();
      unlock();
    },
  };
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

function createPrisma(url: string, poolSize = 10) {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
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
  prepare?: (url: string) => Promise<void>;
}): Promise<Database> {
  return (g.__watchDbOpening ??= (async () => {
    const embedded = opts.databaseUrl ? undefined : await startEmbedded(opts.dataDir);
    const url = opts.databaseUrl ?? embedded!.url;
    await opts.prepare?.(url);
    const { prisma, pool } = createPrisma(url);
    const database: Database = {
      url,
      embedded: !!embedded,
      prisma,
      pool,
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
