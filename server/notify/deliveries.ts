/**
 * One delivery attempt per (execution, event, channel, attempt), at most once, also across crashes: the attempt's send
 * record is claimed first (its unique key), then the message is sent, then the record says how it went. A re-run of
 * the same attempt finds the claim and does not send again. Email claims also take the email caps: the count and the
 * claim are one transaction under per-user and per-mailbox locks, so concurrent sends cannot all pass a count.
 *
 * The caps count what was sent (or may have been: an attempt cut short), never a record skipped, and compare
 * mailboxes (./mailbox), not spellings. Alerts: EMAILS_PER_USER_PER_DAY per owner, EMAILS_PER_RECIPIENT_PER_HOUR per
 * mailbox. Follow confirmations, which anyone can request for any address, have caps of their own and never touch
 * those: one per follow while its link is valid (server/follows), CONFIRMATIONS_PER_MAILBOX_PER_DAY per mailbox
 * across watches, CONFIRMATIONS_PER_WATCH_PER_DAY per watch.
 */
import { env } from "../env";
import { db, type NotificationType, type SendStatus } from "../db";
import { lockKey, transaction, type Query } from "../db/sql";
import type { SendEvent } from "./events";
import { mailboxOf } from "./mailbox";
import { metrics } from "../observability/metrics.mjs";

export type DeliveryOutcome = {
  status: SendStatus | "none";
  retry: boolean;
  /** Skipped for the hourly per-recipient cap: when the window has room again (a finding's email is sent then). */
  retryAt?: string | null;
  /** The service asked to wait this long before the next attempt (a 429's Retry-After). */
  retryAfterMs?: number;
};
/** An attempt claimed and not settled yet (in flight, or cut short by a crash: it may have been sent). */
export const INTERRUPTED = "delivery interrupted";

export const CONFIRMATIONS_PER_MAILBOX_PER_DAY = 3;
export const CONFIRMATIONS_PER_WATCH_PER_DAY = 50;
const CONFIRMATION: SendEvent = "follow.confirmation";
/** The reason a send over the hourly per-recipient cap is recorded with (its prefix is how a retry recognises it). */
export const HOURLY_CAP = "hourly email limit reached";

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
  /** Over an email cap (or held, see claimAttempt): recorded `skipped` with the reason; nothing to send. */
  | { id: string; blocked: string; retryAt: string | null }
  /** An earlier run of this step claimed the attempt already. */
  | { existing: { status: SendStatus; error_message: string | null }; retryAt: string | null };

/** Sent or possibly sent: what the caps count. */
const COUNTED = `(status = 'sent' OR (status = 'failed' AND error_message = '${INTERRUPTED}'))`;

const lock = (query: Query, scope: string, key: string) => lockKey(query, `${scope}:${key}`);

/** When the hourly window of `mailbox` has room for one more: its oldest counted alert leaves the window then. */
async function hourlyRoomAt(query: Query, mailbox: string) {
  const [row] = await query<{ oldest: Date | null }>(
    `SELECT min(created_at) AS oldest FROM notification_sends
      WHERE recipient_key = $1 AND notification_type = 'email' AND event <> '${CONFIRMATION}'
        AND created_at > now() - make_interval(secs => $2::float8 / 1000) AND ${COUNTED}`,
    [mailbox, env.EMAIL_RECIPIENT_WINDOW_MS],
  );
  const at = (row?.oldest?.getTime() ?? Date.now()) + env.EMAIL_RECIPIENT_WINDOW_MS;
  return new Date(Math.max(at, Date.now())).toISOString();
}

type CapVerdict = { reason: string; retryAt: string | null } | null;

async function alertCaps(query: Query, userId: string | null, mailbox: string): Promise<CapVerdict> {
  if (userId) await lock(query, "email-user", userId);
  await lock(query, "email-recipient", mailbox);
  const [counts] = await query<{ per_user: number; per_recipient: number }>(
    `SELECT (SELECT count(*)::int FROM notification_sends
              WHERE user_id = $1 AND notification_type = 'email' AND event <> '${CONFIRMATION}'
                AND created_at > now() - interval '1 day' AND ${COUNTED}) AS per_user,
            (SELECT count(*)::int FROM notification_sends
              WHERE recipient_key = $2 AND notification_type = 'email' AND event <> '${CONFIRMATION}'
                AND created_at > now() - make_interval(secs => $3::float8 / 1000) AND ${COUNTED}) AS per_recipient`,
    [userId, mailbox, env.EMAIL_RECIPIENT_WINDOW_MS],
  );
  if (userId && counts!.per_user >= env.EMAILS_PER_USER_PER_DAY)
    return { reason: `daily email limit reached (${env.EMAILS_PER_USER_PER_DAY} per user per day)`, retryAt: null };
  if (counts!.per_recipient >= env.EMAILS_PER_RECIPIENT_PER_HOUR)
    return {
      reason: `${HOURLY_CAP} for ${mailbox} (${env.EMAILS_PER_RECIPIENT_PER_HOUR} per hour)`,
      retryAt: await hourlyRoomAt(query, mailbox),
    };
  return null;
}

async function confirmationCaps(query: Query, taskId: string | null, mailbox: string): Promise<CapVerdict> {
  await lock(query, "confirm-recipient", mailbox);
  if (taskId) await lock(query, "confirm-watch", taskId);
  const [counts] = await query<{ per_mailbox: number; per_watch: number }>(
    `SELECT (SELECT count(*)::int FROM notification_sends
              WHERE recipient_key = $1 AND notification_type = 'email' AND event = '${CONFIRMATION}'
                AND created_at > now() - interval '1 day' AND ${COUNTED}) AS per_mailbox,
            (SELECT count(*)::int FROM notification_sends
              WHERE user_id IS NULL AND task_id = $2 AND event = '${CONFIRMATION}'
                AND created_at > now() - interval '1 day' AND ${COUNTED}) AS per_watch`,
    [mailbox, taskId],
  );
  if (counts!.per_mailbox >= CONFIRMATIONS_PER_MAILBOX_PER_DAY)
    return {
      reason: `confirmation limit reached for ${mailbox} (${CONFIRMATIONS_PER_MAILBOX_PER_DAY} per day)`,
      retryAt: null,
    };
  if (counts!.per_watch >= CONFIRMATIONS_PER_WATCH_PER_DAY)
    return {
      reason: `confirmation limit reached for this watch (${CONFIRMATIONS_PER_WATCH_PER_DAY} per day)`,
      retryAt: null,
    };
  return null;
}

const emailCaps = (query: Query, rec: Attempt, mailbox: string) =>
  rec.event === CONFIRMATION ? confirmationCaps(query, rec.task_id, mailbox) : alertCaps(query, rec.user_id, mailbox);

/**
 * Claims an attempt. `failed` records a send that cannot even be tried (e.g. email not configured) as such; `skipped`
 * one that is held back for a reason of its own (an unverified address) without counting it or taking the caps.
 * `within`: the caller's transaction, for a claim that must commit with the caller's own writes.
 */
export function claimAttempt(
  rec: Attempt,
  outcome: { failed?: string; skipped?: string } = {},
  within?: Query,
): Promise<Claim> {
  const audience = rec.audience ?? "owner";
  const mailbox = rec.notification_type === "email" ? mailboxOf(rec.recipient) : null;
  const run = <T>(fn: (query: Query) => Promise<T>) => (within ? fn(within) : transaction(fn));
  return run(async (query) => {
    if (rec.execution_id) {
      const [existing] = await query<{ status: SendStatus; error_message: string | null }>(
        `SELECT status::text AS status, error_message FROM notification_sends
          WHERE execution_id = $1 AND event = $2 AND notification_type = $3::"NotificationType" AND attempt = $4 AND audience = $5`,
        [rec.execution_id, rec.event, rec.notification_type, rec.attempt, audience],
      );
      // A re-run of a step whose attempt was skipped for the hourly cap learns again when to try next.
      if (existing)
        return {
          existing,
          retryAt:
            mailbox && existing.status === "skipped" && existing.error_message?.startsWith(HOURLY_CAP)
              ? await hourlyRoomAt(query, mailbox)
              : null,
        };
    }
    const cap = outcome.failed || outcome.skipped || !mailbox ? null : await emailCaps(query, rec, mailbox);
    const blocked = outcome.skipped ?? cap?.reason ?? null;
    const status: SendStatus = blocked ? "skipped" : "failed";
    // A concurrent claim of the same attempt loses on the unique key: it finds the winner's record instead.
    const [row] = await query<{ id: string }>(
      `INSERT INTO notification_sends (id, user_id, task_id, execution_id, event, notification_type, recipient, recipient_key, attempt, status, error_message, audience)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5::"NotificationType", $6, $7, $8, $9::"SendStatus", $10, $11)
       ON CONFLICT (execution_id, event, notification_type, attempt, audience) DO NOTHING RETURNING id`,
      [
        rec.user_id,
        rec.task_id,
        rec.execution_id,
        rec.event,
        rec.notification_type,
        rec.recipient,
        mailbox,
        rec.attempt,
        status,
        outcome.failed ?? blocked ?? INTERRUPTED,
        audience,
      ],
    );
    if (!row) return { existing: { status: "failed", error_message: INTERRUPTED }, retryAt: null };
    // Refused before any send (over a cap, or no way to send): the attempt's outcome is recorded here.
    if (blocked || outcome.failed) countDelivery(rec.notification_type, status);
    return blocked ? { id: row.id, blocked, retryAt: cap?.retryAt ?? null } : { id: row.id };
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
