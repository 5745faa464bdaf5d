/** GET /api/health: the database answers a query, and the scheduler driver is really dispatching runs. */
import { database } from "./db";
import { scheduler } from "./scheduler";
import { log } from "./observability/log.mjs";

const DATABASE_CHECK_TIMEOUT_MS = 3000;

export async function serviceHealth() {
  const check = database().pool.query("SELECT 1");
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error("no answer within 3 s")), DATABASE_CHECK_TIMEOUT_MS).unref(),
  );
  const databaseStatus = await Promise.race([check, timeout]).then(
    () => "ok",
    (e: unknown) => {
      // The reason is for the operator's log, never for an anonymous caller (it can name hosts and users).
      log.error(`health: database unreachable: ${e instanceof Error ? e.message : String(e)}`);
      return "unreachable";
    },
  );
  const schedulerStatus = await scheduler()
    .health()
    .catch((e: unknown) => {
      log.error({ err: e }, "health: scheduler check failed");
      return "error";
    });
  const ok = databaseStatus === "ok" && schedulerStatus.startsWith("ok");
  return { status: ok ? ("ok" as const) : ("degraded" as const), database: databaseStatus, scheduler: schedulerStatus };
}
