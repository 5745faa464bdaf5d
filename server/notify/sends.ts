/** The notification send history: one record per delivery attempt; and the redelivery of a run's notice. */
import { DomainError, notFound } from "../errors";
import { db, type NotificationSend, type NotificationType, type User } from "../db";
import { channelOf } from "../../channels/list";
import { deliveryOf } from "./channels";
import { markDeliveryFailed } from "./deliveries";
import { WATCH_EVENTS, type Notice, type SendEvent, type WatchEvent } from "./events";

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
 * Sends a run's notice again, now, on the channel of the send (any type), to that channel as the watch (or the
 * follow) has it today: a new attempt record (attempt + 1), claimed, sent and recorded as the delivery workflow's
 * attempts are (an email under the same caps and address confirmation, never held for quiet hours or the digest). A
 * webhook carries the original's `webhook-id`, so a receiver that got it the first time can drop it.
 */
export async function redeliver(user: User, sendId: string) {
  const send = await db.notificationSend.findFirst({ where: { id: sendId, user_id: user.id } });
  if (!send) throw notFound("Send");
  if (!send.execution_id || !isWatchEvent(send.event))
    throw new DomainError("invalid", "Only deliveries of a run can be redelivered, not test sends");
  const execution = await db.execution.findUnique({
    where: { id: send.execution_id },
    select: { notices: true, task_id: true },
  });
  if (!execution) throw new DomainError("invalid", "The watch or run of this delivery was deleted");
  const channel = deliveryOf(send.notification_type);
  if (!channel) throw new DomainError("invalid", `${send.notification_type} deliveries can no longer be sent`);
  const notices = (execution.notices as Notice[] | null) ?? [{ event: "task.condition_met" }];
  const notice = notices.find((n) => n.event === send.event) ?? ({ event: "task.condition_met" } as Notice);
  const where = {
    execution_id: send.execution_id,
    event: notice.event,
    notification_type: send.notification_type,
    audience: send.audience,
  };
  const last = await db.notificationSend.aggregate({ where, _max: { attempt: true } });
  const attempt = (last._max.attempt ?? send.attempt) + 1;
  const followId = send.audience.startsWith("follow:") ? send.audience.slice("follow:".length) : undefined;
  const outcome = await channel.deliver(send.execution_id, notice, attempt, followId);
  if (outcome.status === "none") {
    const label = channelOf(send.notification_type)?.label ?? send.notification_type;
    throw new DomainError("invalid", `That ${label} channel is no longer configured (or the follow ended)`);
  }
  if (outcome.claimed) throw new DomainError("conflict", "This delivery is being redelivered already");
  if (send.audience === "owner") await markDeliveryFailed(execution.task_id, user.id);
  return sendView(await db.notificationSend.findFirstOrThrow({ where: { ...where, attempt } }), user);
}
