/**
 * The delivery every chat and push channel shares: who a run's notice goes to (the watch's own channel, or a confirmed
 * follower's), the message (channels/kit/message.ts) built from the same content as the email, the request the
 * channel describes for it, made by ./transport, one claimed and recorded attempt (./deliveries), and the outcome
 * (retry or not, and how long the service asked to wait).
 */
import type { Channel } from "../../channels/kit/define";
import type { Outcome } from "../../channels/kit/delivery";
import { describeViolation } from "../../channels/kit/fit";
import { chatMessage, type ChatMessage, type MessageKind } from "../../channels/kit/message";
import { mapSecrets, redactedView, redactSecret } from "../../channels/kit/secrets";
import { db, type NotificationType, type User } from "../db";
import { env } from "../env";
import { executionView } from "../tasks/views";
import { storedConfig } from "../tasks/notifications";
import { noticeContent } from "./content";
import {
  claimAttempt,
  loadDelivery,
  retryWait,
  settleAttempt,
  type ChannelDelivery,
  type Delivery,
  type DeliveryOutcome,
  type TestSubject,
} from "./deliveries";
import { messageId, type Notice, type SendEvent } from "./events";
import { watchUrl } from "./links";
import { RETRY_DELAYS_MS, send } from "./transport";

type Target<C> = { audience: string; user: User; config: C };

/** The channel of `type` a run's notice goes to: the watch's own, or a confirmed follower's of a public watch. */
export async function channelTarget<C extends { type: string }>(
  d: Delivery,
  type: NotificationType,
  followId?: string | null,
): Promise<Target<C> | null> {
  if (!followId) return d.config ? { audience: "owner", user: d.user, config: storedConfig(d.config) as C } : null;
  const follow = await db.follow.findUnique({ where: { id: followId }, include: { user: true } });
  if (!follow?.user || !follow.confirmed_at || follow.task_id !== d.task.id || !d.task.is_public) return null;
  const config = (follow.notifications as { type: string }[]).find((n) => n.type === type);
  return config ? { audience: `follow:${follow.id}`, user: follow.user, config: config as C } : null;
}

const KINDS: Record<SendEvent, MessageKind> = {
  "task.condition_met": "met",
  "task.condition_retracted": "retracted",
  "task.run_failed": "failing",
  "task.run_recovered": "recovered",
  "account.budget_exhausted": "account",
  "task.test": "test",
  "email.verification": "account",
  "follow.confirmation": "account",
  "digest.daily": "account",
};

/** The message of a run's notice, from the same content as its email; `id` the same on every attempt (see ChatMessage). */
export async function noticeMessage(notice: Notice, d: Delivery, id: string): Promise<ChatMessage> {
  const content = await noticeContent(notice, d);
  return chatMessage({
    id,
    kind: KINDS[notice.event],
    title: content.title,
    watch: d.task.name,
    answer: content.answer,
    confidence: executionView(d.execution).result?.confidence ?? null,
    sources: content.sources,
    url: watchUrl(d.task),
  });
}

export const testMessage = (subject: TestSubject, id: string) =>
  chatMessage({
    id,
    kind: "test",
    title: `Test notification for “${subject.name}”`,
    watch: subject.name,
    answer: "This is a test. When the condition of this watch is met, a message like this one arrives here.",
    sources: [],
    url: subject.url,
  });

/** Where a send record says it went: the channel's summary, secrets redacted by the channel's own rule. */
const recipientOf = (channel: Channel, config: { type: string }) =>
  channel.summary(redactedView(channel, config)).slice(0, 500);

/**
 * One attempt of a run's notice on a channel, the same for every channel that posts over HTTP: find the target,
 * claim the attempt (a replay finds the claim and sends nothing), send, record how it went, and say whether to retry
 * (a failure that may pass, within the retry delays) and how long the service asked to wait.
 */
export async function attemptDelivery<T extends { user: User; audience: string }>(a: {
  type: NotificationType;
  executionId: string;
  notice: Notice;
  attempt: number;
  target(d: Delivery): Promise<T | null>;
  recipient(target: T): string;
  send(d: Delivery, target: T): Promise<Outcome>;
}): Promise<DeliveryOutcome> {
  const d = await loadDelivery(a.executionId, a.type);
  const target = d && (await a.target(d));
  if (!d || !target) return { status: "none", retry: false };
  const claim = await claimAttempt({
    user_id: target.user.id,
    audience: target.audience,
    task_id: d.task.id,
    execution_id: a.executionId,
    event: a.notice.event,
    notification_type: a.type,
    recipient: a.recipient(target),
    attempt: a.attempt,
  });
  if ("existing" in claim) return { status: claim.existing.status, retry: false, claimed: true };
  const sent = await a.send(d, target);
  const outcome: DeliveryOutcome = {
    status: sent.status,
    retry: sent.status === "failed" && !sent.permanent && a.attempt <= RETRY_DELAYS_MS.length,
    retryAfterMs: sent.retryAfterMs,
  };
  // The outcome and the next attempt are written together, so the record never reads as failed for good in between.
  const wait = retryWait(outcome, a.attempt, RETRY_DELAYS_MS);
  await settleAttempt(claim.id, sent.status, sent.error, wait === null ? null : new Date(Date.now() + wait));
  return outcome;
}

/** The operator's settings a channel declared (e.g. TELEGRAM_API_URL), from the server's configuration. */
const settingsOf = (channel: Channel) =>
  Object.fromEntries(Object.keys(channel.settings ?? {}).map((name) => [name, env[name as keyof typeof env]]));

/**
 * An attempt's error with every secret of the config in it (or a secret URL's path) shown as reads show it: a service
 * may echo what it was sent, and the error is recorded, shown in the history and answered to a test send.
 */
function withoutSecrets(channel: Channel, config: Record<string, unknown>, error: string | null) {
  if (!error) return error;
  let out = error;
  mapSecrets(channel, config as { type: string }, (value) => {
    const path = /^https?:\/\//i.test(value) ? value.replace(/^https?:\/\/[^/]+/i, "") : "";
    for (const part of [value, path]) if (part.length > 4) out = out.split(part).join(redactSecret(part));
    return value;
  });
  return out;
}

/**
 * The request `channel` describes for `message`, sent unless it is over one of the channel's limits: the service would
 * refuse it on every attempt, so it fails at once, saying which limit (the builders fit them, so this is Watch's bug).
 */
async function attemptChat(channel: Channel, message: ChatMessage, config: Record<string, unknown>): Promise<Outcome> {
  const request = channel.delivery!.request(message, config as never, settingsOf(channel));
  const over = channel.limits?.check(request) ?? [];
  if (over.length)
    return {
      status: "failed",
      error: `Watch built a message over ${channel.label}'s limits: ${over.map(describeViolation).join("; ")}`,
      permanent: true,
    };
  const sent = await send(request, channel.delivery!.read);
  return { ...sent, error: withoutSecrets(channel, config, sent.error) };
}

/** A chat or push channel's delivery: the request its folder describes, made by the transport. */
export function chatDelivery(channel: Channel): ChannelDelivery {
  const type = channel.type as NotificationType;
  const attempt = (message: ChatMessage, config: Record<string, unknown>) => attemptChat(channel, message, config);
  return {
    retryDelaysMs: RETRY_DELAYS_MS,
    deliver: (executionId, notice, n, followId) =>
      attemptDelivery({
        type,
        executionId,
        notice,
        attempt: n,
        target: (d) => channelTarget<{ type: string }>(d, type, followId),
        recipient: (t) => recipientOf(channel, t.config),
        send: async (d, t) => {
          // One notice to one recipient: the webhook's message id, and the audience when it is a follower's.
          const id = `${messageId(executionId, notice.event)}${t.audience === "owner" ? "" : `_${t.audience}`}`;
          return attempt(await noticeMessage(notice, d, id), t.config);
        },
      }),
    async test(user, subject, config) {
      const claim = await claimAttempt({
        user_id: user.id,
        task_id: subject.task?.id ?? null,
        execution_id: null,
        event: "task.test",
        notification_type: type,
        recipient: recipientOf(channel, config as { type: string }),
        attempt: 1,
      });
      if ("existing" in claim) return { status: claim.existing.status, error: claim.existing.error_message };
      const sent = await attempt(testMessage(subject, claim.id), config);
      await settleAttempt(claim.id, sent.status, sent.error);
      return { status: sent.status, error: sent.error };
    },
  };
}
