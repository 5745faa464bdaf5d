/**
 * Retention: once a day, runs older than EXECUTION_RETENTION_DAYS that found nothing (not met,
 * failed, cancelled) are deleted, and send records older than SEND_RETENTION_DAYS. Kept whatever their age: findings,
 * each watch's last run, runs that announced something (a failure notice, a retraction: their deliveries can be
 * redelivered) and runs still open. Deletes go in small batches, each its own short statement, so no lock is held
 * for long and a crash mid-way loses nothing (the next batch or the next day carries on). The same job forgets what
 * only matters for a while: follows by email never confirmed within their link's lifetime, and the ids of Clerk
 * webhook deliveries past CLERK_EVENT_MEMORY_DAYS.
 */
import { now } from "./clock";
import { sql } from "./db/sql";
import { env } from "./env";
import { FOLLOW_CONFIRM_TTL_MS } from "./notify/links";

const DAY_MS = 24 * 3_600_000;
/** How long a Clerk webhook delivery's id is remembered (Svix gives up retrying a delivery after about five days). */
export const CLERK_EVENT_MEMORY_DAYS = 30;
/** The daily job's time of day (UTC), away from the digests' mornings. */
const RETENTION_HOUR_UTC = 3;

/** The next 03:00 UTC strictly after `from`. */
export function nextRetentionAt(from: Date) {
  const at = new Date(from);
  at.setUTCHours(RETENTION_HOUR_UTC, 0, 0, 0);
  return at.getTime() > from.getTime() ? at : new Date(at.getTime() + DAY_MS);
}

/**
 * Deletes by `select` (a query returning keys, `LIMIT $2`) until a batch comes back short; returns the rows deleted.
 */
async function inBatches(table: string, select: string, cutoff: Date, batchSize: number, key = "id") {
  let total = 0;
  for (;;) {
    const deleted = await sql<{ id: string }>(`DELETE FROM ${table} WHERE ${key} IN (${select}) RETURNING ${key}`, [
      cutoff,
      batchSize,
    ]);
    total += deleted.length;
    if (deleted.length < batchSize) return total;
  }
}

export type Pruned = { executions: number; sends: number; follows: number; clerkEvents: number };

export async function pruneExecutions(opts: { now?: Date; batchSize?: number } = {}): Promise<Pruned> {
  const at = (opts.now ?? now()).getTime();
  const batchSize = opts.batchSize ?? 1000;
  const executions = await inBatches(
    "executions",
    `SELECT e.id FROM executions e
      WHERE e.status IN ('success', 'failed', 'cancelled') AND e.started_at < $1
        AND e.condition_met IS NOT TRUE AND (e.notices IS NULL OR e.notices = '[]'::jsonb)
        AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.last_execution_id = e.id)
      LIMIT $2`,
    new Date(at - env.EXECUTION_RETENTION_DAYS * DAY_MS),
    batchSize,
  );
  const sends = await inBatches(
    "notification_sends",
    `SELECT id FROM notification_sends WHERE created_at < $1 LIMIT $2`,
    new Date(at - env.SEND_RETENTION_DAYS * DAY_MS),
    batchSize,
  );
  const follows = await inBatches(
    "follows",
    `SELECT id FROM follows WHERE confirmed_at IS NULL AND created_at < $1 LIMIT $2`,
    new Date(at - FOLLOW_CONFIRM_TTL_MS),
    batchSize,
  );
  const clerkEvents = await inBatches(
    "clerk_webhook_events",
    `SELECT svix_id FROM clerk_webhook_events WHERE received_at < $1 LIMIT $2`,
    new Date(at - CLERK_EVENT_MEMORY_DAYS * DAY_MS),
    batchSize,
    "svix_id",
  );
  return { executions, sends, follows, clerkEvents };
}
