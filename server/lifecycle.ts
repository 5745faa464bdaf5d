/** Start-up and shutdown of everything the server process owns: the database and the scheduler driver. */
import { env } from "./env";
import { openDatabase, database } from "./db";
import { setScheduler } from "./scheduler";
import { startDriver } from "./runs/driver";
import { agentConfigProblem } from "./agent";
import { flushViewCounts } from "./tasks/view-counts";
import { nextRetentionAt } from "./retention";
import { now } from "./clock";
import { sql } from "./db/sql";

/** Replicas started together queue on the migrations' advisory lock; each wait is Prisma's 10 s: a minute in all. */
const MIGRATION_LOCK_ATTEMPTS = 6;

async function migrate(url: string) {
  const { migrateDatabase } = await import("./db/schema-engine");
  for (let attempt = 1; ; attempt++) {
    try {
      const applied = await migrateDatabase(url);
      if (applied.length) console.log(`applied migrations: ${applied.join(", ")}`);
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== "P1002" || attempt === MIGRATION_LOCK_ATTEMPTS) throw e;
      console.warn("another replica holds the migration lock: waiting for it");
    }
  }
}

const g = globalThis as unknown as {
  __watchStopping?: Promise<void>;
  __watchReady?: Promise<void>;
  __watchStopDriver?: () => Promise<void>;
};

export function startServices() {
  return (g.__watchReady ??= start());
}

async function start() {
  if (!(globalThis as { __watchFront?: boolean }).__watchFront)
    throw new Error(
      "Start Watch with `npm start` or `npm run dev` (scripts/start.mjs): its front records the client address that per-IP limits and SERVICE_NOAUTH rely on, and caps request bodies.",
    );
  const started = Date.now();
  const db = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, prepare: migrate });
  const driver = await startDriver(db);
  setScheduler(driver.scheduler);
  await driver.scheduler.armRetention(nextRetentionAt(now()));
  g.__watchStopDriver = driver.stop;
  if (env.SERVICE_NOAUTH)
    console.warn(
      "⚠ SERVICE_NOAUTH=1: unauthenticated requests from this machine act as the test user. Never use in production.",
    );
  const modelProblem = agentConfigProblem();
  if (modelProblem) console.warn(`⚠ Every watch check will fail until this is fixed: ${modelProblem}`);
  if (db.embedded) await hintPostgresPastEmbeddedLimit();
  console.log(
    `ready: ${db.embedded ? `embedded PGlite in ${env.DATA_DIR}` : "PostgreSQL"}, scheduler ${driver.scheduler.name}, in ${Date.now() - started} ms`,
  );
}

/** Past this many watches the embedded database is the bottleneck (docs/benchmarks.md, Scale). */
const EMBEDDED_WATCH_LIMIT = 10_000;

export async function hintPostgresPastEmbeddedLimit() {
  const n = (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM tasks`, []))[0]?.n ?? 0;
  if (n > EMBEDDED_WATCH_LIMIT)
    console.warn(
      `ℹ ${n} watches on the embedded database: past ${EMBEDDED_WATCH_LIMIT.toLocaleString("en")}, set DATABASE_URL to a PostgreSQL server (docs/benchmarks.md, Scale).`,
    );
}

/** Idempotent: called on SIGTERM/SIGINT by the server script after in-flight requests have finished. */
export function stopServices() {
  return (g.__watchStopping ??= (async () => {
    setScheduler(undefined);
    await g.__watchStopDriver?.();
    await flushViewCounts().catch((e: Error) => console.error(`page views not written: ${e.message}`));
    await database().close();
  })());
}

(globalThis as { __watchStopServices?: () => Promise<void> }).__watchStopServices = stopServices;
