/**
 * Email through Resend with the react-email template. Caps per user and per recipient; an address other than
 * the account's own gets a one-time verification link, and sends to it are skipped until it is confirmed.
 */
import { randomBytes } from "node:crypto";
import { render } from "@react-email/render";
import { Resend } from "resend";
import { VerifyAddress, WatchNotification } from "../../emails/watch-notification";
import { env } from "../env";
import { db, type User } from "../db";
import { webhookSecret } from "../users/service";
import { claimAttempt, loadDelivery, settleAttempt, type DeliveryOutcome } from "./deliveries";
import { pauseUrl, watchUrl } from "./links";

type Sent = { status: "sent" | "failed" | "skipped"; error: string | null };

export const NOT_CONFIGURED = "Email is not configured on this server: set RESEND_API_KEY";

async function sendMail(message: { to: string; subject: string; react: React.ReactElement; idempotencyKey?: string }): Promise<Sent> {
  if (!env.RESEND_API_KEY) return { status: "failed", error: NOT_CONFIGURED };
  const resend = new Resend(env.RESEND_API_KEY);
  const [html, text] = await Promise.all([render(message.react), render(message.react, { plainText: true })]);
  const { error } = await resend.emails.send(
    { from: env.EMAIL_FROM, to: message.to, subject: message.subject, html, text },
    message.idempotencyKey ? { idempotencyKey: message.idempotencyKey } : undefined,
  );
  return error ? { status: "failed", error: `Resend: ${error.message}` } : { status: "sent", error: null };
}

/** null when the owner may receive mail at `address`; otherwise why not (a verification link is sent once). */
async function unverifiedReason(user: User, address: string, watchName: string): Promise<string | null> {
  if (address.toLowerCase() === user.email.toLowerCase()) return null;
  const existing = await db.emailVerification.findUnique({ where: { user_id_email: { user_id: user.id, email: address } } });
  if (existing?.verified_at) return null;
  if (!existing) {
    const token = randomBytes(24).toString("base64url");
    await db.emailVerification.create({ data: { user_id: user.id, email: address, token } });
    const verifyUrl = `${env.APP_URL}/api/v1/email/verify?token=${token}`;
    const sent = await sendMail({ to: address, subject: "Confirm your address for Watch", react: VerifyAddress({ verifyUrl, watchName }) });
    if (sent.status !== "sent") return `address not verified; the verification email could not be sent (${sent.error})`;
    return `address not verified: verification link sent to ${address}`;
  }
  return `address not verified: waiting for ${address} to confirm`;
}

async function capReason(userId: string, recipient: string): Promise<string | null> {
  const dayAgo = new Date(Date.now() - 24 * 3_600_000);
  const hourAgo = new Date(Date.now() - 3_600_000);
  const [perUser, perRecipient] = await Promise.all([
    db.notificationSend.count({ where: { user_id: userId, notification_type: "email", status: "sent", created_at: { gt: dayAgo } } }),
    db.notificationSend.count({ where: { recipient, notification_type: "email", status: "sent", created_at: { gt: hourAgo } } }),
  ]);
  if (perUser >= env.EMAILS_PER_USER_PER_DAY) return `daily email limit reached (${env.EMAILS_PER_USER_PER_DAY} per user per day)`;
  if (perRecipient >= env.EMAILS_PER_RECIPIENT_PER_HOUR)
    return `hourly email limit reached for ${recipient} (${env.EMAILS_PER_RECIPIENT_PER_HOUR} per hour)`;
  return null;
}

async function notificationEmail(user: User, task: { id: string; name: string }, content: {
  title: string;
  answer: string;
  evidence: string;
  sources: { url: string; title: string }[];
}) {
  const { secret } = await webhookSecret(user);
  return WatchNotification({ watchName: task.name, ...content, watchUrl: watchUrl(task.id), pauseUrl: pauseUrl(task.id, secret) });
}

export async function deliverEmail(executionId: string): Promise<DeliveryOutcome> {
  const d = await loadDelivery(executionId, "email");
  if (!d) return { status: "none", retry: false };
  const recipient = d.config.address ?? "";
  const claim = await claimAttempt({
    user_id: d.user.id,
    task_id: d.task.id,
    execution_id: executionId,
    notification_type: "email",
    recipient,
    attempt: 1,
  });
  if ("existing" in claim) return { status: claim.existing.status, retry: false };

  let outcome: Sent;
  try {
    const blocked = !env.RESEND_API_KEY ? NOT_CONFIGURED : ((await unverifiedReason(d.user, recipient, d.task.name)) ?? (await capReason(d.user.id, recipient)));
    if (blocked) outcome = { status: blocked === NOT_CONFIGURED ? "failed" : "skipped", error: blocked };
    else {
      const notification = d.execution.notification as { title: string; markdown: string };
      const result = (d.execution.result ?? {}) as { answer?: string; evidence?: string };
      outcome = await sendMail({
        to: recipient,
        subject: notification.title,
        react: await notificationEmail(d.user, d.task, {
          title: notification.title,
          answer: notification.markdown || result.answer || "",
          evidence: result.evidence ?? "",
          sources: (d.execution.grounding_sources as { url: string; title: string }[] | null) ?? [],
        }),
        idempotencyKey: `watch-email-${executionId}`,
      });
    }
  } catch (e) {
    outcome = { status: "failed", error: e instanceof Error ? e.message : String(e) };
  }
  await settleAttempt(claim.id, outcome.status, outcome.error);
  return { status: outcome.status, retry: false };
}

/** "Send test notification" for email: the real template with sample content; not recorded in the history. */
export async function sendTestEmail(user: User, task: { id: string; name: string }, address: string): Promise<Sent> {
  const blocked = !env.RESEND_API_KEY ? NOT_CONFIGURED : await unverifiedReason(user, address, task.name);
  if (blocked) return { status: blocked === NOT_CONFIGURED ? "failed" : "skipped", error: blocked };
  return sendMail({
    to: address,
    subject: `Test notification: ${task.name}`,
    react: await notificationEmail(user, task, {
      title: `Test notification for “${task.name}”`,
      answer: "This is a test. When the condition of this watch is met, you will get an email like this one.",
      evidence: "",
      sources: [],
    }),
  });
}

export async function verifyEmailToken(token: string) {
  const row = await db.emailVerification.findUnique({ where: { token } });
  if (!row) return null;
  if (!row.verified_at) await db.emailVerification.update({ where: { id: row.id }, data: { verified_at: new Date() } });
  return { verified: true as const, email: row.email };
}
