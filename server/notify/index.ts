/** Delivery of a watch's findings (CONTRACT §6): email and webhook, independent, each attempt recorded once. */
import { DomainError, notFound } from "../errors";
import { db, type NotificationType, type User } from "../db";
import { sendTestEmail } from "./email";
import { sendTestWebhook } from "./webhook";

export { deliverEmail, planEmail, verifyEmailToken, type EmailPlan } from "./email";
export { deliverWebhook, followersOf, webhookPayload, WEBHOOK_RETRY_DELAYS_MS } from "./webhook";
export type { DeliveryOutcome } from "./deliveries";

export async function sendTestNotification(user: User, taskId: string, type: NotificationType) {
  const task = await db.task.findFirst({
    where: { id: taskId, user_id: user.id },
    include: { notifications: { where: { type } } },
  });
  if (!task) throw notFound();
  const config = task.notifications[0];
  if (!config) throw new DomainError("invalid", `This task has no ${type} notification configured`);
  const sent =
    type === "email"
      ? await sendTestEmail(user, task, config.address ?? "")
      : await sendTestWebhook(user, task, config);
  return { status: sent.status, error_message: sent.error };
}
