/** The notification send history: one record per delivery attempt; and the redelivery of a webhook. */
import { DomainError, notFound } from "../errors";
import { db, type NotificationSend, type NotificationType, type User } from "../db";
import { claimAttempt, loadDelivery, markDeliveryFailed, settleAttempt } from "./deliveries";
import { WATCH_EVENTS, type Notice, type SendEvent, type WatchEvent } from "./events";
import { deliverTo, webhookTarget } from "./webhook";

/** A record of `user`'s history (read by their id, so it is theirs). */
export function sendView(s: NotificationSend, user: User) {
  return {
    id: s.id,
    user_id: user.id,
    task_id: s.task_id,
    execution_id: s.execution_id,
    event: s.event,
    attempt: s.attempt,
    recipient: s.recipient,
    notification_type: s.notification_type,
    status: s.status,
    error_message: s.error_message,
    failure: s.failure,
    next_attempt_at: s.next_attempt_at?.toISOString() ?? null,
    created_at: s.created_at.toISOString(),
  };
}

export async function listSends(
  user: User,
  q: { notification_type?: NotificationType; task_id?: string; event?: SendEvent; limit: number; offset: number },
) {
  const where = {
    user_id: user.id,
    ...(q.notification_type ? { notification_type: q.notification_type } : {}),
    ...(q.task_id ? { task_id: q.task_id } : {}),
    ...(q.event ? { event: q.event } : {}),
  };
  const [rows, total] = await Promise.all([
    db.notificationSend.findMany({ where, orderBy: { created_at: "desc" }, take: q.limit, skip: q.offset }),
    db.notificationSend.count({ where }),
  ]);
  return { sends: rows.map((s) => sendView(s, user)), total };
}

const isWatchEvent = (event: string): event is WatchEvent => (WATCH_EVENTS as readonly string[]).includes(event);

/**
 * Sends a run's webhook notice again, now, to the watch's current webhook: a new attempt record (attempt + 1) with the
 * original's `webhook-id`, so a receiver that got it the first time can drop it.
 */
export async function redeliver(user: User, sendId: string) {
  const send = await db.notificationSend.findFirst({ where: { id: sendId, user_id: user.id } });
  if (!send) throw notFound("Send");
  if (send.notification_type !== "webhook")
    throw new DomainError("invalid", "Only webhook deliveries can be redelivered");
  if (!send.execution_id || !isWatchEvent(send.event))
    throw new DomainError("invalid", "Only deliveries of a run can be redelivered, not test sends");
  const d = await loadDelivery(send.execution_id, "webhook");
  if (!d) throw new DomainError("invalid", "The watch or run of this delivery was deleted");
  const target = await webhookTarget(
    d,
    send.audience.startsWith("follow:") ? send.audience.slice("follow:".length) : null,
  );
  if (!target) throw new DomainError("invalid", "That webhook is no longer configured (or the follow ended)");
  const notices = (d.execution.notices as Notice[] | null) ?? [{ event: "task.condition_met" }];
  const notice = notices.find((n) => n.event === send.event) ?? ({ event: "task.condition_met" } as Notice);
  const last = await db.notificationSend.aggregate({
    where: {
      execution_id: send.execution_id,
      event: send.event,
      notification_type: "webhook",
      audience: send.audience,
    },
    _max: { attempt: true },
  });
  const claim = await claimAttempt({
    user_id: user.id,
    audience: send.audience,
    task_id: d.task.id,
    execution_id: send.execution_id,
    event: notice.event,
    notification_type: "webhook",
    recipient: target.endpoint.url ?? "",
    attempt: (last._max.attempt ?? send.attempt) + 1,
  });
  if ("existing" in claim) throw new DomainError("conflict", "This delivery is being redelivered already");
  const sent = await deliverTo(d, target, notice);
  await settleAttempt(claim.id, sent.status, sent.error);
  if (send.audience === "owner") await markDeliveryFailed(d.task.id, user.id);
  return sendView(await db.notificationSend.findUniqueOrThrow({ where: { id: claim.id } }), user);
}
