/** Start-up and shutdown of everything the server process owns: the database and the scheduler driver. */
import { env } from "./env";
import { openDatabase, database } from "./db";
import { setScheduler } from "./scheduler";
import { startDriver } from "./runs/driver";
import { agentConfigProblem } from "./agent";

async function migrate(url: string) {
  const { applyMigrations } = await import("./db/schema-engine");
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const applied = await applyMigrations(new PrismaPg({ connectionString: url, max: 1 }));
  if (applied.length) console.log(`applied migrations: ${applied.join(", ")}`);
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
  g.__watchStopDriver = driver.stop;
  if (env.SERVICE_NOAUTH)
    console.warn("⚠ SERVICE_NOAUTH=1: unauthenticated requests from this machine act as the test user. Never use in production.");
  const modelProblem = agentConfigProblem();
  if (modelProblem) console.warn(`⚠ Every watch check will fail until this is fixed: ${modelProblem}`);
  console.log(
    `ready: ${db.embedded ? `embedded PGlite in ${env.DATA_DIR}` : "PostgreSQL"}, scheduler ${driver.scheduler.name}, in ${Date.now() - started} ms`,
  );
}

/** Idempotent: called on SIGTERM/SIGINT by the server script after in-flight requests have finished. */
export function stopServices() {
  return (g.__watchStopping ??= (async () => {
    setScheduler(undefined);
    await g.__watchStopDriver?.();
    await database().close();
  })());
}

(globalThis as { __watchStopServices?: () => Promise<void> }).__watchStopServices = stopServices;
