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
import { db, type DeliveryFailure, type NotificationType, type SendStatus, type Task, type User } from "../db";
import { lockKey, sql, transaction, type Query } from "../db/sql";
import type { Notice, SendEvent } from "./events";
import { mailboxOf } from "./mailbox";
import { channelOf, channelPosition } from "../../channels/list";
import { metrics } from "../observability/metrics.mjs";

export type DeliveryOutcome = {
  status: SendStatus | "none";
  retry: boolean;
  /** Skipped for the hourly per-recipient cap: when the window has room again (a finding's email is sent then). */
  retryAt?: string | null;
  /** The service asked to wait this long before the next attempt (a 429's Retry-After). */
  retryAfterMs?: number;
  /** The attempt was claimed already (by an earlier run of the step, or a concurrent redelivery): nothing was sent. */
  claimed?: boolean;
};
/** When a notice may go: now, after the recipient's quiet hours, in their daily digest, or not at all. */
export type DeliveryPlan = { kind: "now" | "digest" | "none" } | { kind: "later"; at: string };

export type TestResult = { status: "sent" | "failed" | "skipped"; error: string | null };
/**
 * What a test message is about: a saved watch (its name, its page, its send history), or a channel tried before any
 * watch has it (`task` null: the name typed so far, the dashboard for a page).
 */
export type TestSubject = { task: Task | null; name: string; url: string };

export type ChannelDelivery = {
  /** Waits between attempts: attempt n + 1 follows attempt n after `retryDelaysMs[n - 1]` (a 429's wait within it). */
  retryDelaysMs: readonly number[];
  /** A channel that waits for quiet hours or goes into a digest plans each notice first (a step of its own). */
  plan?(executionId: string, notice: Notice, followId?: string): Promise<DeliveryPlan>;
  /** One attempt of a run's notice, claimed and recorded once (also across crashes). */
  deliver(executionId: string, notice: Notice, attempt: number, followId?: string): Promise<DeliveryOutcome>;
  /** "Send test notification": a `task.test` send to the config, recorded in the history. */
  test(user: User, subject: TestSubject, config: Record<string, unknown>): Promise<TestResult>;
  /** Step ids kept from before there was a registry, so a delivery in flight across that upgrade replays in place. */
  stepIds?: { attempt(attempt: number): string; wait(attempt: number): string };
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

/**
 * Why a send did not arrive, from its status and error (the one place it is decided; stored with the record when it
 * is settled): `refused` — the destination said no (HTTP 4xx, a redirect) or cannot be sent to as configured (not
 * https, a private address, an address not confirmed yet): retrying the same will not help; `unreachable` — HTTP 5xx,
 * 408 or 429, a timeout, DNS, a refused connection: it may pass; `internal` — Watch itself (no email key, the email
 * provider refusing Watch's account, an email cap, an attempt cut short). Null when it was sent, or is under way.
 */
export function deliveryFailure(status: SendStatus, error: string | null): DeliveryFailure | null {
  if (status === "sent" || error === INTERRUPTED) return null;
  const e = error ?? "";
  const http = /^HTTP (\d{3})/.exec(e);
  if (http) {
    const code = Number(http[1]);
    return code >= 500 || code === 408 || code === 425 || code === 429 ? "unreachable" : "refused";
  }
  if (/^refused:|must use https|^address not verified/.test(e)) return "refused";
  if (/^Resend: .*(rate limit|too many requests|unable to fetch|could not be resolved|internal server error)/i.test(e))
    return "unreachable";
  if (/^Resend: |not configured|limit reached/i.test(e)) return "internal";
  return "unreachable";
}

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
    const error = outcome.failed ?? blocked ?? INTERRUPTED;
    const [row] = await query<{ id: string }>(
      `INSERT INTO notification_sends (id, user_id, task_id, execution_id, event, notification_type, recipient, recipient_key, attempt, status, error_message, audience, failure)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5::"NotificationType", $6, $7, $8, $9::"SendStatus", $10, $11, $12::"DeliveryFailure")
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
        error,
        audience,
        deliveryFailure(status, error),
      ],
    );
    if (!row) return { existing: { status: "failed", error_message: INTERRUPTED }, retryAt: null };
    // Refused before any send (over a cap, or no way to send): the attempt's outcome is recorded here.
    if (blocked || outcome.failed) countDelivery(rec.notification_type, status);
    return blocked ? { id: row.id, blocked, retryAt: cap?.retryAt ?? null } : { id: row.id };
  });
}

/** Records how an attempt went and, when another is planned, when it is due. */
export async function settleAttempt(
  id: string,
  status: SendStatus,
  error: string | null,
  nextAttemptAt: Date | null = null,
) {
  const { notification_type } = await db.notificationSend.update({
    where: { id },
    data: { status, error_message: error, failure: deliveryFailure(status, error), next_attempt_at: nextAttemptAt },
    select: { notification_type: true },
  });
  countDelivery(notification_type, status);
}

/** Further attempts of a finding's or retraction's email skipped for the hourly cap (each when the window has room). */
export const EMAIL_CAP_RETRIES = 3;

/**
 * How long to wait before the next attempt of a notice on a channel, or null when there is none: an email skipped for
 * the hourly cap goes when the hour has room (at most EMAIL_CAP_RETRIES times); a failure that may pass is retried
 * after the channel's delays, a rate-limited service's own wait (a 429's Retry-After) honoured within the planned one.
 */
export function retryWait(outcome: DeliveryOutcome, attempt: number, delays: readonly number[], now = Date.now()) {
  if (outcome.retryAt && attempt <= EMAIL_CAP_RETRIES) return Math.max(0, Date.parse(outcome.retryAt) - now);
  if (!outcome.retry || attempt > delays.length) return null;
  const planned = delays[attempt - 1]!;
  return Math.min(outcome.retryAfterMs ?? planned, planned);
}

/**
 * After an attempt of a run's notice (the delivery workflow's step): when the next one is due (`waitMs` from now; null:
 * none), and an attempt that never settled is settled as cut short. The owner's watch is then marked when its latest
 * notice failed on a channel.
 */
export async function recordNextAttempt(
  a: { executionId: string; event: SendEvent; type: NotificationType; attempt: number; followId?: string | null },
  waitMs: number | null,
) {
  const [row] = await sql<{ task_id: string | null; user_id: string | null }>(
    `UPDATE notification_sends SET next_attempt_at = $6,
            failure = CASE WHEN status = 'sent' THEN NULL ELSE coalesce(failure, 'internal') END
      WHERE execution_id = $1 AND event = $2 AND notification_type = $3::"NotificationType" AND attempt = $4 AND audience = $5
      RETURNING task_id, user_id`,
    [
      a.executionId,
      a.event,
      a.type,
      a.attempt,
      a.followId ? `follow:${a.followId}` : "owner",
      waitMs === null ? null : new Date(Date.now() + waitMs),
    ],
  );
  if (row?.task_id && row.user_id && !a.followId) await markDeliveryFailed(row.task_id, row.user_id);
}

/**
 * The send records of a watch's latest notice, one per channel (its latest attempt): of the owner's history, the run
 * that last sent something, and on each channel the latest attempt of it. `task` and `user` are SQL expressions (a
 * parameter or a column) for the watch and its owner.
 */
const latestNotice = (task: string, user: string) => `SELECT DISTINCT ON (s.notification_type) s.*
     FROM notification_sends s
    WHERE s.execution_id = (SELECT n.execution_id FROM notification_sends n
                             WHERE n.user_id = ${user} AND n.task_id = ${task} AND n.audience = 'owner'
                               AND n.execution_id IS NOT NULL
                             ORDER BY n.created_at DESC LIMIT 1)
      AND s.audience = 'owner'
    ORDER BY s.notification_type, s.created_at DESC, s.attempt DESC`;

/** Not sent and no attempt left (settled: one under way has no failure yet). */
const FAILED = `(d.status <> 'sent' AND d.next_attempt_at IS NULL AND d.failure IS NOT NULL)`;

/** Marks (or clears) the watch whose latest notice failed on a channel: the list's mark and its attention order. */
export async function markDeliveryFailed(taskId: string, userId: string) {
  await sql(
    `UPDATE tasks t SET delivery_failed = f.failed
       FROM (SELECT coalesce(bool_or(${FAILED}), false) AS failed FROM (${latestNotice("$1", "$2")}) d) f
      WHERE t.id = $1 AND t.delivery_failed <> f.failed`,
    [taskId, userId],
  );
}

export type DeliveryState = "delivered" | "retrying" | "failed";

/** A send record's state: sent; still trying (an attempt planned, or one under way: not settled); or no attempt left. */
export const deliveryState = (s: {
  status: SendStatus;
  failure: DeliveryFailure | null;
  next_attempt_at: Date | null;
}): DeliveryState =>
  s.status === "sent" ? "delivered" : s.next_attempt_at || s.failure === null ? "retrying" : "failed";

/**
 * What became of a watch's latest notice on each channel it went to (the owner's sends), as a JSON column of a read of
 * `tasks t` (`deliveryViews` makes the views): read with the watch, it costs its page no statement of its own.
 */
export const latestDeliveriesColumn = (owner: string) => `CASE WHEN t.user_id = ${owner} THEN
            (SELECT coalesce(json_agg(x), '[]') FROM (SELECT d.id, d.event, d.notification_type, d.status,
                    d.error_message, d.failure, d.attempt, d.created_at, d.next_attempt_at
               FROM (${latestNotice("t.id", "t.user_id")}) d) x) END`;

/** A row of `latestDeliveriesColumn` (JSON: its times are strings). */
export type LatestDelivery = {
  id: string;
  event: string;
  notification_type: NotificationType;
  status: SendStatus;
  error_message: string | null;
  failure: DeliveryFailure | null;
  attempt: number;
  created_at: string;
  next_attempt_at: string | null;
};

/** `latestDeliveriesColumn`'s rows as the owner's view of a watch shows them, in the registry's order. */
export function deliveryViews(rows: LatestDelivery[]) {
  return rows
    .sort((a, b) => channelPosition(a.notification_type) - channelPosition(b.notification_type))
    .map((s) => {
      const next = s.next_attempt_at === null ? null : new Date(s.next_attempt_at);
      return {
        channel: s.notification_type,
        label: channelOf(s.notification_type)?.label ?? s.notification_type,
        event: s.event,
        state: deliveryState({ ...s, next_attempt_at: next }),
        failure: s.status === "sent" ? null : s.failure,
        // An attempt under way (claimed, not settled) has no error to tell yet.
        error: s.status === "sent" || s.error_message === INTERRUPTED ? null : s.error_message,
        attempts: s.attempt,
        last_attempt_at: new Date(s.created_at).toISOString(),
        next_attempt_at: next?.toISOString() ?? null,
        send_id: s.id,
      };
    });
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
