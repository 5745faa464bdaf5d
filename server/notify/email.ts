/**
 * Email through Resend with the react-email templates. Every email (a run's notice, a test, an address verification)
 * is one recorded send that counts against the caps (./deliveries). An address other than the account's own gets a
 * verification link (valid for VERIFY_LINK_TTL_MS), and sends to it are skipped until it is confirmed.
 */
import { randomBytes } from "node:crypto";
import { render } from "@react-email/render";
import { Resend } from "resend";
import { VerifyAddress, WatchNotification } from "../../emails/watch-notification";
import { env } from "../env";
import { db, type User } from "../db";
import { noticeContent, type Content } from "./content";
import { claimAttempt, loadDelivery, settleAttempt, type Attempt, type DeliveryOutcome } from "./deliveries";
import { eventSuffix, toAccount, type Notice } from "./events";
import type { NotificationConfig } from "../tasks/schemas";
import { pauseUrl, unsubscribeUrls, verifyUrl, watchUrl } from "./links";

type Sent = { status: "sent" | "failed" | "skipped"; error: string | null };
type Message = { subject: string; react: React.ReactElement; idempotencyKey?: string; headers?: Record<string, string> };

export const NOT_CONFIGURED = "Email is not configured on this server: set RESEND_API_KEY";
export const VERIFY_LINK_TTL_MS = 7 * 24 * 3_600_000;

async function sendMail(to: string, message: Message): Promise<Sent> {
  const resend = new Resend(env.RESEND_API_KEY);
  const [html, text] = await Promise.all([render(message.react), render(message.react, { plainText: true })]);
  const { error } = await resend.emails.send(
    { from: env.EMAIL_FROM, to, subject: message.subject, html, text, headers: message.headers },
    message.idempotencyKey ? { idempotencyKey: message.idempotencyKey } : undefined,
  );
  return error ? { status: "failed", error: `Resend: ${error.message}` } : { status: "sent", error: null };
}

/**
 * One email as one recorded send: claimed (caps included), sent, settled. `hold` may skip it after the claim (an
 * unverified address), with the reason recorded.
 */
export async function sendRecorded(attempt: Omit<Attempt, "notification_type" | "attempt">, message: () => Promise<Message>, hold?: () => Promise<string | null>): Promise<Sent> {
  const claim = await claimAttempt({ ...attempt, notification_type: "email", attempt: 1 }, env.RESEND_API_KEY ? undefined : NOT_CONFIGURED);
  if ("existing" in claim) return { status: claim.existing.status, error: claim.existing.error_message };
  if (!env.RESEND_API_KEY) return { status: "failed", error: NOT_CONFIGURED };
  if (claim.blocked) return { status: "skipped", error: claim.blocked };
  let outcome: Sent;
  try {
    const held = await hold?.();
    outcome = held ? { status: "skipped", error: held } : await sendMail(attempt.recipient, await message());
  } catch (e) {
    outcome = { status: "failed", error: e instanceof Error ? e.message : String(e) };
  }
  await settleAttempt(claim.id, outcome.status, outcome.error);
  return outcome;
}

/** null when the owner may receive mail at `address`; otherwise why not (a verification link is sent once per link lifetime). */
export async function unverifiedReason(user: User, task: { id: string; name: string }, address: string): Promise<string | null> {
  if (address.toLowerCase() === user.email.toLowerCase()) return null;
  const existing = await db.emailVerification.findUnique({ where: { user_id_email: { user_id: user.id, email: address } } });
  if (existing?.verified_at) return null;
  if (existing && Date.now() - existing.created_at.getTime() < VERIFY_LINK_TTL_MS) return `address not verified: waiting for ${address} to confirm`;
  const token = randomBytes(24).toString("base64url");
  await db.emailVerification.upsert({
    where: { user_id_email: { user_id: user.id, email: address } },
    create: { user_id: user.id, email: address, token },
    update: { token, created_at: new Date() },
  });
  const sent = await sendRecorded(
    { user_id: user.id, task_id: task.id, execution_id: null, event: "email.verification", recipient: address },
    async () => ({ subject: "Confirm your address for Watch", react: VerifyAddress({ verifyUrl: verifyUrl(token), watchName: task.name }) }),
  );
  if (sent.status !== "sent") return `address not verified; the verification email could not be sent (${sent.error})`;
  return `address not verified: verification link sent to ${address}`;
}

async function notificationEmail(task: { id: string; name: string; is_public: boolean }, content: Omit<Content, "subject">) {
  return WatchNotification({ watchName: task.name, ...content, watchUrl: watchUrl(task), action: { label: "Pause this watch", url: await pauseUrl(task.id) } });
}

/**
 * A run's notice by email: findings and retractions to the watch's email channel (held until a new address is
 * confirmed), a failing watch and its recovery to the account's own address.
 */
export async function deliverEmail(executionId: string, notice: Notice): Promise<DeliveryOutcome> {
  const d = await loadDelivery(executionId, "email");
  if (!d) return { status: "none", retry: false };
  const account = toAccount(notice.event);
  if (!account && !d.config) return { status: "none", retry: false };
  const recipient = account ? d.user.email : (d.config!.address ?? "");
  const sent = await sendRecorded(
    { user_id: d.user.id, task_id: d.task.id, execution_id: executionId, event: notice.event, recipient },
    async () => {
      const { subject, ...content } = await noticeContent(notice, d);
      return { subject, react: await notificationEmail(d.task, content), idempotencyKey: `watch-email-${executionId}${eventSuffix(notice.event)}` };
    },
    account ? undefined : () => unverifiedReason(d.user, d.task, recipient),
  );
  return { status: sent.status, retry: false };
}

/**
 * A finding or retraction of a public watch to each confirmed follower with an email address, at most once each
 * (a claim per follower), with a visible unsubscribe link and RFC 8058 one-click unsubscribe headers.
 */
export async function emailFollowers(executionId: string, notice: Notice) {
  const d = await loadDelivery(executionId, "email");
  if (!d?.task.is_public) return { followers: 0 };
  const follows = await db.follow.findMany({ where: { task_id: d.task.id, confirmed_at: { not: null } }, include: { user: true } });
  let followers = 0;
  for (const follow of follows) {
    const channel = (follow.notifications as NotificationConfig[]).find((n) => n.type === "email");
    const address = follow.email ?? (channel?.type === "email" ? channel.address : null);
    if (!address) continue;
    followers++;
    const unsubscribe = await unsubscribeUrls(follow.id);
    await sendRecorded(
      { user_id: follow.user_id, audience: `follow:${follow.id}`, task_id: d.task.id, execution_id: executionId, event: notice.event, recipient: address },
      async () => {
        const { subject, ...content } = await noticeContent(notice, d);
        return {
          subject,
          react: WatchNotification({ watchName: d.task.name, ...content, watchUrl: watchUrl(d.task), whose: "A watch you follow", action: { label: "Unsubscribe", url: unsubscribe.page } }),
          headers: { "List-Unsubscribe": `<${unsubscribe.oneClick}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
          idempotencyKey: `watch-email-${executionId}${eventSuffix(notice.event)}-${follow.id}`,
        };
      },
      follow.user ? () => unverifiedReason(follow.user!, d.task, address) : undefined,
    );
  }
  return { followers };
}

/** "Send test notification" for email: the real template with sample content, recorded as a `task.test` send. */
export function sendTestEmail(user: User, task: { id: string; name: string; is_public: boolean }, address: string): Promise<Sent> {
  return sendRecorded(
    { user_id: user.id, task_id: task.id, execution_id: null, event: "task.test", recipient: address },
    async () => ({
      subject: `Test notification: ${task.name}`,
      react: await notificationEmail(task, {
        title: `Test notification for “${task.name}”`,
        answer: "This is a test. When the condition of this watch is met, you will get an email like this one.",
        evidence: "",
        sources: [],
      }),
    }),
    () => unverifiedReason(user, task, address),
  );
}

/** The confirmation button of a verification link. Unknown and expired links are refused. */
export async function verifyEmailToken(token: string) {
  const row = await db.emailVerification.findUnique({ where: { token } });
  if (!row) return null;
  if (!row.verified_at) {
    if (Date.now() - row.created_at.getTime() > VERIFY_LINK_TTL_MS) return null;
    await db.emailVerification.update({ where: { id: row.id }, data: { verified_at: new Date() } });
  }
  return { verified: true as const, email: row.email };
}
