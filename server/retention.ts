/**
 * Retention (CONTRACT §12): once a day, runs older than EXECUTION_RETENTION_DAYS that found nothing (not met,
 * failed, cancelled) are deleted, and send records older than SEND_RETENTION_DAYS. Kept whatever their age: findings,
 * each watch's last run, runs that announced something (a failure notice, a retraction: their deliveries can be
 * redelivered) and runs still open. Deletes go in small batches, each its own short statement, so no lock is held
 * for long and a crash mid-way loses nothing (the next batch or the next day carries on).
 */
import { now } from "./clock";
import { sql } from "./db/sql";
import { env } from "./env";

const DAY_MS = 24 * 3_600_000;
/** The daily job's time of day (UTC), away from the digests' mornings. */
const RETENTION_HOUR_UTC = 3;

/** The next 03:00 UTC strictly after `from`. */
export function nextRetentionAt(from: Date) {
  const at = new Date(from);
  at.setUTCHours(RETENTION_HOUR_UTC, 0, 0, 0);
  return at.getTime() > from.getTime() ? at : new Date(at.getTime() + DAY_MS);
}

/** Deletes by `select` (a query returning ids, `LIMIT $2`) until a batch comes back short; returns the rows deleted. */
async function inBatches(table: string, select: string, cutoff: Date, batchSize: number) {
  let total = 0;
  for (;;) {
    const deleted = await sql<{ id: string }>(`DELETE FROM ${table} WHERE id IN (${select}) RETURNING id`, [
      cutoff,
      batchSize,
    ]);
    total += deleted.length;
    if (deleted.length < batchSize) return total;
  }
}

export type Pruned = { executions: number; sends: number };

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
  return { executions, sends };
}
