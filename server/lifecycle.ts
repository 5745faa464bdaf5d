/** Start-up and shutdown of everything the server process owns: the database and the scheduler driver. */
import { env } from "./env";
import { openDatabase, database } from "./db";
import { setScheduler } from "./scheduler";
import { startDriver } from "./runs/driver";
import { agentConfigProblem } from "./agent";
import { flushViewCounts } from "./tasks/view-counts";
import { confirmationsSent, sendConfirmations } from "./follows/service";
import { nextRetentionAt } from "./retention";
import { now } from "./clock";
import { sql } from "./db/sql";
import { log } from "./observability/log.mjs";
import { forgetStartState } from "./start-state";
const tracingEnabled = () => !!process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
import { metrics } from "./observability/metrics.mjs";

/** Replicas started together queue on the migrations' advisory lock; each wait is Prisma's 10 s: a minute in all. */
const MIGRATION_LOCK_ATTEMPTS = 6;

async function migrate(url: string) {
  const { migrateDatabase } = await import("./db/schema-engine");
  for (let attempt = 1; ; attempt++) {
    try {
      const applied = await migrateDatabase(url);
      if (applied.length) log.info(`applied migrations: ${applied.join(", ")}`);
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== "P1002" || attempt === MIGRATION_LOCK_ATTEMPTS) throw e;
      log.warn("another replica holds the migration lock: waiting for it");
    }
  }
}

const g = globalThis as unknown as {
  __watchStopping?: Promise<void>;
  __watchReady?: Promise<void>;
  __watchStopDriver?: () => Promise<void>;
  __watchDrainDriver?: (deadline: number) => Promise<void>;
};

export function startServices() {
  return (g.__watchReady ??= start());
}

async function start() {
  // After a stop, a start in the same process begins afresh (the in-process test tier's next file).
  await g.__watchStopping;
  g.__watchStopping = undefined;
  if (!(globalThis as { __watchFront?: boolean }).__watchFront)
    throw new Error(
      "Start Watch with `npm start` or `npm run dev` (scripts/start.mjs): its front records the client address that per-IP limits and SERVICE_NOAUTH rely on, and caps request bodies.",
    );
  const started = Date.now();
  const db = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    embedded: { sharedBuffers: env.EMBEDDED_SHARED_BUFFERS },
    prepare: migrate,
  });
  const driver = await startDriver(db);
  setScheduler(driver.scheduler);
  await driver.scheduler.armRetention(nextRetentionAt(now()));
  g.__watchStopDriver = driver.stop;
  g.__watchDrainDriver = driver.drain;
  metrics().countDueWaitingWith(countDueWaiting);
  if (env.SERVICE_NOAUTH)
    log.warn(
      "⚠ SERVICE_NOAUTH=1: unauthenticated requests from this machine act as the test user. Never use in production.",
    );
  const modelProblem = agentConfigProblem();
  if (modelProblem) log.warn(`⚠ Every watch check will fail until this is fixed: ${modelProblem}`);
  if (db.embedded) await hintPostgresPastEmbeddedLimit();
  // What a process that stopped or crashed still owed.
  sendConfirmations();
  log.info(
    `ready: ${db.embedded ? `embedded PGlite in ${env.DATA_DIR}` : "PostgreSQL"}, scheduler ${driver.scheduler.name}, in ${Date.now() - started} ms`,
  );
}

/** Past this many watches the embedded database is the bottleneck (docs/benchmarks.md, Scale). */
const EMBEDDED_WATCH_LIMIT = 10_000;

export async function hintPostgresPastEmbeddedLimit() {
  const n = (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM tasks`, []))[0]?.n ?? 0;
  if (n > EMBEDDED_WATCH_LIMIT)
    log.warn(
      `ℹ ${n} watches on the embedded database: past ${EMBEDDED_WATCH_LIMIT.toLocaleString("en")}, move to a PostgreSQL server with \`npm run db:move\` (docs/deploy.md).`,
    );
}

/** Active watches whose run is due and not started: next_run passed, and no run of theirs open (the metric's gauge). */
async function countDueWaiting() {
  const [row] = await sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM tasks t
      WHERE t.state = 'active' AND t.next_run <= now()
        AND NOT EXISTS (SELECT 1 FROM executions e WHERE e.id = t.last_execution_id AND e.status IN ('pending', 'running'))`,
    [],
  );
  return row!.n;
}

/**
 * The first step of a shutdown (scripts/start.mjs): the engine takes no new run, and the agent runs under way get
 * until `deadline` to finish; the others resume at the next start.
 */
export async function drainRuns(deadline: number) {
  await g.__watchDrainDriver?.(deadline);
}

/**
 * Idempotent: called on SIGTERM/SIGINT by the server script after in-flight requests and runs have finished. What the
 * start kept in memory is forgotten, so the process could start again.
 */
export function stopServices() {
  return (g.__watchStopping ??= (async () => {
    setScheduler(undefined);
    await g.__watchStopDriver?.();
    await confirmationsSent(5_000);
    await flushViewCounts().catch((e: Error) => log.error(`page views not written: ${e.message}`));
    await database().close();
    if (tracingEnabled()) await (await import("./observability/tracing")).stopTracing();
    forgetStartState();
    g.__watchReady = undefined;
  })());
}

Object.assign(globalThis, { __watchStopServices: stopServices, __watchDrainRuns: drainRuns });
