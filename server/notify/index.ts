/**
 * Delivery of a watch's notices to its channels (channels/: one folder per channel; ./channels: how the server delivers
 * each), each channel independent of the others, each attempt recorded once (./deliveries).
 */
import { DomainError, notFound } from "../errors";
import { env } from "../env";
import { db, type NotificationType, type Task, type User } from "../db";
import { CHANNEL_TYPES, type ChannelType, type NotificationConfig } from "../../channels/list";
import { parseNotifications, storedConfig } from "../tasks/notifications";
import { deliveryOf } from "./channels";
import { deliveryFailure, type TestResult, type TestSubject } from "./deliveries";
import { watchUrl } from "./links";

export { verifyEmailToken } from "./email";
export { deliverWebhook, webhookPayload } from "./webhook";
export type { DeliveryOutcome } from "./deliveries";

/** A test message's answer: how the send went, why it did not arrive (as a delivery's failure is classed). */
const testAnswer = (sent: TestResult) => ({
  status: sent.status,
  failure: deliveryFailure(sent.status, sent.error),
  error_message: sent.error,
});

const aboutTask = (task: Task): TestSubject => ({ task, name: task.name, url: watchUrl(task) });

export async function sendTestNotification(user: User, taskId: string, type: NotificationType) {
  const task = await db.task.findFirst({
    where: { id: taskId, user_id: user.id },
    include: { notifications: { where: { type } } },
  });
  if (!task) throw notFound();
  const row = task.notifications[0];
  const channel = deliveryOf(type);
  if (!row || !channel) throw new DomainError("invalid", `This task has no ${type} notification configured`);
  return testAnswer(await channel.test(user, aboutTask(task), storedConfig(row)));
}

/**
 * A test message to a channel config before (or without) saving it, validated exactly as a save validates it. With
 * `task_id` (your watch, or a public watch you follow) the message is about that watch, and a secret sent as reads
 * show it (redacted) stands for the one stored on that watch's (or your follow's) channel of the same type, as it
 * would on saving; without, a new channel needs every secret in full.
 */
export async function sendTestTo(user: User, input: { notification: unknown; task_id?: string; name?: string }) {
  let stored: NotificationConfig[] = [];
  let subject: TestSubject = { task: null, name: input.name || "New watch", url: `${env.APP_URL}/dashboard` };
  if (input.task_id) {
    const task = await db.task.findUnique({ where: { id: input.task_id }, include: { notifications: true } });
    const follow =
      task && task.user_id !== user.id
        ? await db.follow.findFirst({ where: { task_id: task.id, user_id: user.id }, select: { notifications: true } })
        : null;
    if (!task || (task.user_id !== user.id && !follow)) throw notFound();
    stored = (follow ? follow.notifications : task.notifications.map(storedConfig)) as NotificationConfig[];
    subject = aboutTask(task);
  }
  const [config] = parseNotifications([input.notification], stored);
  return testAnswer(await deliveryOf(config!.type)!.test(user, subject, config!));
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
