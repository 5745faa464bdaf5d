/**
 * One delivery attempt per (execution, event, channel, attempt), at most once, also across crashes: the attempt's send
 * record is claimed first (its unique key), then the message is sent, then the record says how it went. A re-run of
 * the same attempt finds the claim and does not send again. Email claims also take the email caps: the count and the
 * claim are one transaction under per-user and per-recipient locks, so concurrent sends cannot all pass a count.
 */
import { env } from "../env";
import { db, type NotificationType, type SendStatus } from "../db";
import { transaction, type Query } from "../db/sql";
import type { SendEvent } from "./events";
import { metrics } from "../observability/metrics.mjs";

export type DeliveryOutcome = { status: SendStatus | "none"; retry: boolean };
/** An attempt claimed and not settled yet (in flight, or cut short by a crash: it may have been sent). */
export const INTERRUPTED = "delivery interrupted";

export type Attempt = {
  /** Whose history: the owner, a signed-in follower; null for a follower by email only. */
  user_id: string | null;
  /** "owner", or "follow:<id>": at most one delivery per audience. */
  audience?: string;
  /** Null for a daily digest. */
  task_id: string | null;
  /** Null for a send no run triggered (test notification, address verification): never deduplicated. */
  execution_id: string | null;
  event: SendEvent;
  notification_type: NotificationType;
  recipient: string;
  attempt: number;
};

export type Claim =
  | { id: string; blocked?: undefined }
  /** Over an email cap: recorded `skipped` with the reason; nothing to send. */
  | { id: string; blocked: string }
  /** An earlier run of this step claimed the attempt already. */
  | { existing: { status: SendStatus; error_message: string | null } };

/** Sent or possibly sent: what the caps count. */
const COUNTED = `(status = 'sent' OR (status = 'failed' AND error_message = '${INTERRUPTED}'))`;

async function emailCapReason(query: Query, userId: string | null, recipient: string): Promise<string | null> {
  if (userId) await query(`SELECT pg_advisory_xact_lock(hashtextextended('email-user:' || $1, 0))`, [userId]);
  await query(`SELECT pg_advisory_xact_lock(hashtextextended('email-recipient:' || $1, 0))`, [recipient]);
  const [counts] = await query<{ per_user: number; per_recipient: number }>(
    `SELECT (SELECT count(*)::int FROM notification_sends
              WHERE user_id = $1 AND notification_type = 'email' AND created_at > now() - interval '1 day' AND ${COUNTED}) AS per_user,
            (SELECT count(*)::int FROM notification_sends
              WHERE recipient = $2 AND notification_type = 'email' AND created_at > now() - interval '1 hour' AND ${COUNTED}) AS per_recipient`,
    [userId, recipient],
  );
  if (userId && counts!.per_user >= env.EMAILS_PER_USER_PER_DAY)
    return `daily email limit reached (${env.EMAILS_PER_USER_PER_DAY} per user per day)`;
  if (counts!.per_recipient >= env.EMAILS_PER_RECIPIENT_PER_HOUR)
    return `hourly email limit reached for ${recipient} (${env.EMAILS_PER_RECIPIENT_PER_HOUR} per hour)`;
  return null;
}

/** Claims an attempt; `failed` records a send that cannot even be tried (e.g. email not configured) as such. */
export function claimAttempt(rec: Attempt, failed?: string): Promise<Claim> {
  const audience = rec.audience ?? "owner";
  return transaction(async (query) => {
    if (rec.execution_id) {
      const [existing] = await query<{ status: SendStatus; error_message: string | null }>(
        `SELECT status::text AS status, error_message FROM notification_sends
          WHERE execution_id = $1 AND event = $2 AND notification_type = $3::"NotificationType" AND attempt = $4 AND audience = $5`,
        [rec.execution_id, rec.event, rec.notification_type, rec.attempt, audience],
      );
      if (existing) return { existing };
    }
    const blocked = failed
      ? null
      : rec.notification_type === "email"
        ? await emailCapReason(query, rec.user_id, rec.recipient)
        : null;
    const status: SendStatus = blocked ? "skipped" : "failed";
    // A concurrent claim of the same attempt loses on the unique key: it finds the winner's record instead.
    const [row] = await query<{ id: string }>(
      `INSERT INTO notification_sends (id, user_id, task_id, execution_id, event, notification_type, recipient, attempt, status, error_message, audience)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5::"NotificationType", $6, $7, $8::"SendStatus", $9, $10)
       ON CONFLICT (execution_id, event, notification_type, attempt, audience) DO NOTHING RETURNING id`,
      [
        rec.user_id,
        rec.task_id,
        rec.execution_id,
        rec.event,
        rec.notification_type,
        rec.recipient,
        rec.attempt,
        status,
        failed ?? blocked ?? INTERRUPTED,
        audience,
      ],
    );
    if (!row) return { existing: { status: "failed", error_message: INTERRUPTED } };
    // Refused before any send (over a cap, or no way to send): the attempt's outcome is recorded here.
    if (blocked || failed) countDelivery(rec.notification_type, status);
    return blocked ? { id: row.id, blocked } : { id: row.id };
  });
}

export async function settleAttempt(id: string, status: SendStatus, error: string | null) {
  const { notification_type } = await db.notificationSend.update({
    where: { id },
    data: { status, error_message: error },
    select: { notification_type: true },
  });
  countDelivery(notification_type, status);
}

const countDelivery = (channel: NotificationType, status: SendStatus) => metrics().deliveries.inc({ channel, status });

/** What a delivery reads: the execution, its watch with the channel of `type` (if any) and its owner. */
export async function loadDelivery(executionId: string, type: NotificationType) {
  const execution = await db.execution.findUnique({
    where: { id: executionId },
    include: { task: { include: { user: true, notifications: { where: { type } } } } },
  });
  if (!execution) return null;
  return {
    execution,
    task: execution.task,
    user: execution.task.user,
    config: execution.task.notifications[0] ?? null,
  };
}
export type Delivery = NonNullable<Awaited<ReturnType<typeof loadDelivery>>>;
