/**
 * Email through Resend with the react-email templates. Every email (a run's notice, a test, an address verification, a
 * follow's confirmation) is one recorded send under the caps (./deliveries). An address other than the account's own
 * gets a verification link (valid for VERIFY_LINK_TTL_MS), and sends to it are skipped until it is confirmed.
 */
import { randomBytes } from "node:crypto";
import { render } from "@react-email/render";
import { Resend } from "resend";
import { VerifyAddress, WatchNotification, type WatchNotificationProps } from "../../emails/watch-notification";
import { emailSubject } from "../../channels/email/limits";
import { env } from "../env";
import { heldUntil } from "../users/settings";
import { db, type User } from "../db";
import { noticeContent, type Content } from "./content";
import {
  claimAttempt,
  loadDelivery,
  settleAttempt,
  type Attempt,
  type Claim,
  type Delivery,
  type DeliveryOutcome,
  type DeliveryPlan,
  type TestSubject,
} from "./deliveries";
import type { Query } from "../db/sql";
import { EVENT_LABELS, eventSuffix, forFollowers, toAccount, type Notice } from "./events";
import { formatDate } from "../render/dates";
import { defang } from "../../lib/defang";
import { storedConfig } from "../tasks/notifications";
import { pauseUrl, unsubscribeUrls, verifyUrl, watchUrl } from "./links";
import { renderMarkdown, siteOf, sourceHref, USER_CONTENT_REL } from "../render/markdown";

type Sent = {
  status: "sent" | "failed" | "skipped";
  error: string | null;
  retryAt?: string | null;
  /** The attempt was claimed already: nothing was sent now. */
  claimed?: boolean;
};
type Message = {
  subject: string;
  react: React.ReactElement;
  idempotencyKey?: string;
  headers?: Record<string, string>;
};

export const NOT_CONFIGURED = "Email is not configured on this server: set RESEND_API_KEY";
export const VERIFY_LINK_TTL_MS = 7 * 24 * 3_600_000;

async function sendMail(to: string, message: Message): Promise<Sent> {
  const resend = new Resend(env.RESEND_API_KEY);
  const [html, text] = await Promise.all([render(message.react), render(message.react, { plainText: true })]);
  const { error } = await resend.emails.send(
    { from: env.EMAIL_FROM, to, subject: emailSubject(message.subject), html, text, headers: message.headers },
    message.idempotencyKey ? { idempotencyKey: message.idempotencyKey } : undefined,
  );
  return error ? { status: "failed", error: `Resend: ${error.message}` } : { status: "sent", error: null };
}

/**
 * One email as one recorded send: claimed (caps included), sent, settled. `hold` may hold it back (an unverified
 * address), the reason recorded; it is asked before the claim, so that what it sends itself (a verification link) is
 * not counted against this send's own claim in flight.
 */
export async function sendRecorded(
  attempt: Omit<Attempt, "notification_type" | "attempt"> & { attempt?: number },
  message: () => Promise<Message>,
  hold?: () => Promise<string | null>,
): Promise<Sent> {
  const held = env.RESEND_API_KEY ? ((await hold?.()) ?? null) : null;
  return sendClaimed(await claimEmail(attempt, held), attempt.recipient, message);
}

/** The claim of one email (`within` the caller's transaction when given); `sendClaimed` sends it. */
export function claimEmail(
  attempt: Omit<Attempt, "notification_type" | "attempt"> & { attempt?: number },
  held: string | null = null,
  within?: Query,
): Promise<Claim> {
  return claimAttempt(
    { ...attempt, notification_type: "email", attempt: attempt.attempt ?? 1 },
    env.RESEND_API_KEY ? { skipped: held ?? undefined } : { failed: NOT_CONFIGURED },
    within,
  );
}

/** Sends the email of a claim, and records how it went; a claim held back, or made before, sends nothing. */
export async function sendClaimed(claim: Claim, to: string, message: () => Promise<Message>): Promise<Sent> {
  if ("existing" in claim)
    return {
      status: claim.existing.status,
      error: claim.existing.error_message,
      retryAt: claim.retryAt,
      claimed: true,
    };
  if (!env.RESEND_API_KEY) return { status: "failed", error: NOT_CONFIGURED };
  if (claim.blocked) return { status: "skipped", error: claim.blocked, retryAt: claim.retryAt };
  let outcome: Sent;
  try {
    outcome = await sendMail(to, await message());
  } catch (e) {
    outcome = { status: "failed", error: e instanceof Error ? e.message : String(e) };
  }
  await settleAttempt(claim.id, outcome.status, outcome.error);
  return outcome;
}

/**
 * null when the owner may receive mail at `address`; otherwise why not. A verification link is sent once per link
 * lifetime; a link that could not be sent (a cap, a provider error) is not waited for: the next send tries again.
 */
export async function unverifiedReason(
  user: User,
  task: { id: string | null; name: string },
  address: string,
): Promise<string | null> {
  if (address.toLowerCase() === user.email.toLowerCase()) return null;
  const existing = await db.emailVerification.findUnique({
    where: { user_id_email: { user_id: user.id, email: address } },
  });
  if (existing?.verified_at) return null;
  if (existing && Date.now() - existing.created_at.getTime() < VERIFY_LINK_TTL_MS)
    return `address not verified: waiting for ${address} to confirm`;
  const token = randomBytes(24).toString("base64url");
  const pending = await db.emailVerification.upsert({
    where: { user_id_email: { user_id: user.id, email: address } },
    create: { user_id: user.id, email: address, token },
    update: { token, created_at: new Date() },
  });
  const sent = await sendRecorded(
    { user_id: user.id, task_id: task.id, execution_id: null, event: "email.verification", recipient: address },
    async () => ({
      subject: "Confirm your address for Watch",
      react: VerifyAddress({ verifyUrl: verifyUrl(token), watchName: defang(task.name) }),
    }),
  );
  if (sent.status !== "sent") {
    await db.emailVerification.deleteMany({ where: { id: pending.id, verified_at: null } });
    return `address not verified; the verification email could not be sent (${sent.error})`;
  }
  return `address not verified: verification link sent to ${address}`;
}

/** The strip at the top of a notice's email: what happened, in words, dated in the reader's time zone. */
function verdictOf(notice: Notice, at: Date | null, timeZone: string): WatchNotificationProps["verdict"] {
  const label = EVENT_LABELS[notice.event];
  const day = at ? formatDate(at, timeZone) : null;
  switch (notice.event) {
    case "task.condition_met":
      return { tone: "ok", text: day ? `${label} · found ${day}` : label };
    case "task.condition_retracted":
      return { tone: "warn", text: day ? `${label} · ${day}` : label };
    case "task.run_failed":
      return { tone: "danger", text: `${label} · the last ${notice.consecutive_failures} checks failed` };
    case "task.run_recovered":
      return { tone: "ok", text: `${label} · checking again` };
    case "account.budget_exhausted":
      return { tone: "warn", text: `${label} · watches wait for next month` };
  }
}

/** What the template shows of a notice's content: the answer rendered, each source with its site and link (or none). */
const rendered = ({ answer, sources, ...rest }: Omit<Content, "subject">) => ({
  ...rest,
  answerHtml: renderMarkdown(answer),
  sources: sources.map((s) => {
    const href = sourceHref(s.url);
    return { label: s.title || s.url, site: s.domain || (href ? siteOf(href) : ""), href, rel: USER_CONTENT_REL };
  }),
});

async function notificationEmail(
  task: { id: string; name: string; is_public: boolean },
  content: Omit<Content, "subject">,
  verdict: WatchNotificationProps["verdict"],
) {
  return WatchNotification({
    watchName: task.name,
    verdict,
    ...rendered(content),
    watchUrl: watchUrl(task),
    action: { label: "Pause this watch", url: await pauseUrl(task.id) },
  });
}

/** Who a run's notice goes to by email: the owner's channel (or address), or a follower's. */
async function emailTarget(d: Delivery, notice: Notice, followId?: string | null) {
  if (!followId) {
    if (toAccount(notice.event))
      return { audience: "owner", user: d.user, address: d.user.email, verify: false, unsubscribe: null };
    const address = d.config ? (storedConfig(d.config) as { address?: string }).address : null;
    return address ? { audience: "owner", user: d.user, address, verify: true, unsubscribe: null } : null;
  }
  const follow = await db.follow.findUnique({ where: { id: followId }, include: { user: true } });
  if (!follow?.confirmed_at || follow.task_id !== d.task.id || !d.task.is_public) return null;
  const channel = (follow.notifications as { type: string; address?: string }[]).find((n) => n.type === "email");
  const address = follow.email ?? channel?.address ?? null;
  if (!address) return null;
  return {
    audience: `follow:${follow.id}`,
    user: follow.user,
    address,
    verify: !!follow.user,
    unsubscribe: await unsubscribeUrls(follow.id),
  };
}

/**
 * When a run's notice may go by email (a step of its own, before any wait): now, when the recipient's quiet hours end,
 * or in their next daily digest (findings and retractions only). An email follower without an account has no settings.
 */
export async function planEmail(executionId: string, notice: Notice, followId?: string | null): Promise<EmailPlan> {
  const d = await loadDelivery(executionId, "email");
  const target = d && (await emailTarget(d, notice, followId));
  if (!target) return { kind: "none" };
  if (!target.user) return { kind: "now" };
  if (target.user.email_digest === "daily" && !toAccount(notice.event)) return { kind: "digest" };
  const until = heldUntil(target.user);
  return until ? { kind: "later", at: until.toISOString() } : { kind: "now" };
}
export type EmailPlan = DeliveryPlan;

/**
 * A run's notice by email, at most once per recipient and attempt: findings and retractions to the watch's email
 * channel (held until a new address is confirmed) and to each follower (with a visible unsubscribe link and RFC 8058
 * one-click headers); a failing watch, its recovery and a spent budget to the account's own address. A finding or a
 * retraction skipped for the hourly per-recipient cap answers when to try again (the workflow sends attempt + 1 then).
 */
export async function deliverEmail(
  executionId: string,
  notice: Notice,
  followId?: string | null,
  attempt = 1,
): Promise<DeliveryOutcome> {
  const d = await loadDelivery(executionId, "email");
  const target = d && (await emailTarget(d, notice, followId));
  if (!d || !target) return { status: "none", retry: false };
  const sent = await sendRecorded(
    {
      user_id: target.user?.id ?? null,
      audience: target.audience,
      task_id: d.task.id,
      execution_id: executionId,
      event: notice.event,
      recipient: target.address,
      attempt,
    },
    async () => {
      const { subject, ...content } = await noticeContent(notice, d);
      const verdict = verdictOf(notice, d.execution.completed_at, target.user?.timezone ?? "UTC");
      const idempotencyKey = `watch-email-${executionId}${eventSuffix(notice.event)}${followId ? `-${followId}` : ""}${attempt > 1 ? `-${attempt}` : ""}`;
      if (!target.unsubscribe)
        return { subject, react: await notificationEmail(d.task, content, verdict), idempotencyKey };
      return {
        subject,
        react: WatchNotification({
          watchName: d.task.name,
          verdict,
          ...rendered(content),
          watchUrl: watchUrl(d.task),
          whose: "A watch you follow",
          action: { label: "Unsubscribe", url: target.unsubscribe.page },
        }),
        headers: {
          "List-Unsubscribe": `<${target.unsubscribe.oneClick}>`,
          "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
        idempotencyKey,
      };
    },
    target.verify && target.user ? () => unverifiedReason(target.user!, d.task, target.address) : undefined,
  );
  const retryAt = forFollowers(notice.event) && sent.status === "skipped" ? (sent.retryAt ?? null) : null;
  return { status: sent.status, retry: false, retryAt, claimed: sent.claimed };
}

/** "Send test notification" for email: the real template with sample content, recorded as a `task.test` send. */
export function sendTestEmail(user: User, subject: TestSubject, address: string): Promise<Sent> {
  const task = subject.task ?? { id: null, name: subject.name };
  return sendRecorded(
    { user_id: user.id, task_id: task.id, execution_id: null, event: "task.test", recipient: address },
    async () => ({
      subject: `Test notification: ${subject.name}`,
      react: WatchNotification({
        watchName: subject.name,
        verdict: { tone: "neutral", text: `${EVENT_LABELS["task.test"]} · nothing happened yet` },
        ...rendered({
          title: `Test notification for “${subject.name}”`,
          answer: "This is a test. When the condition of this watch is met, you will get an email like this one.",
          evidence: "",
          sources: [],
        }),
        watchUrl: subject.url,
        action: task.id
          ? { label: "Pause this watch", url: await pauseUrl(task.id) }
          : { label: "Delivery history", url: `${env.APP_URL}/dashboard/notifications` },
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
