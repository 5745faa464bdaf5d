/**
 * Delivery of a watch's notices to its channels (channels/: one folder per channel; ./channels: how the server delivers
 * each), each channel independent of the others, each attempt recorded once (./deliveries).
 */
import { DomainError, notFound } from "../errors";
import { db, type NotificationType, type User } from "../db";
import { CHANNEL_TYPES, type ChannelType } from "../../channels/list";
import { storedConfig } from "../tasks/notifications";
import { deliveryOf } from "./channels";

export { verifyEmailToken } from "./email";
export { deliverWebhook, webhookPayload } from "./webhook";
export type { DeliveryOutcome } from "./deliveries";

export async function sendTestNotification(user: User, taskId: string, type: NotificationType) {
  const task = await db.task.findFirst({
    where: { id: taskId, user_id: user.id },
    include: { notifications: { where: { type } } },
  });
  if (!task) throw notFound();
  const row = task.notifications[0];
  const channel = deliveryOf(type);
  if (!row || !channel) throw new DomainError("invalid", `This task has no ${type} notification configured`);
  const sent = await channel.test(user, task, storedConfig(row));
  return { status: sent.status, error_message: sent.error };
}

/**
 * The confirmed followers of a public watch to notify, by channel type (a follower by email only has the email
 * channel): each delivery is a workflow of its own.
 */
export async function followersOf(executionId: string): Promise<Partial<Record<ChannelType, string[]>>> {
  const execution = await db.execution.findUnique({
    where: { id: executionId },
    select: { task: { select: { id: true, is_public: true } } },
  });
  if (!execution?.task.is_public) return {};
  const follows = await db.follow.findMany({
    where: { task_id: execution.task.id, confirmed_at: { not: null } },
    select: { id: true, email: true, notifications: true },
  });
  const byType: Partial<Record<ChannelType, string[]>> = {};
  for (const type of CHANNEL_TYPES) {
    const ids = follows
      .filter(
        (f) => (type === "email" && !!f.email) || (f.notifications as { type: string }[]).some((n) => n.type === type),
      )
      .map((f) => f.id);
    if (ids.length) byType[type] = ids;
  }
  return byType;
}
