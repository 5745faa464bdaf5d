/**
 * The delivery every chat and push channel shares: who a run's notice goes to (the watch's own channel, or a confirmed
 * follower's), the message (./message) rendered by the channel's `request`, one claimed and recorded attempt
 * (../deliveries), and the outcome (retry or not, and how long the service asked to wait). A channel module supplies
 * only its config, its checks and its `request`.
 */
import type { z } from "zod";
import type { ChannelSpec } from "../../../client/channels/spec";
import { db, type NotificationType, type User } from "../../db";
import { claimAttempt, loadDelivery, settleAttempt, type Delivery, type DeliveryOutcome } from "../deliveries";
import type { Notice } from "../events";
import { watchUrl } from "../links";
import { RETRY_DELAYS_MS, send, type Attempted } from "./http";
import { chatMessage, type ChatMessage } from "./message";
import { redactedView } from "./secrets";
import { defineChannel, storedConfig, type TestTask } from "./types";

export type ChatRequest = {
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  /** The operator's own configuration (TELEGRAM_API_URL), not a URL a user typed. */
  trusted?: boolean;
};

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

/** The message of a run's notice, from the same content as its email. */
export async function noticeMessage(notice: Notice, d: Delivery): Promise<ChatMessage> {
  // Loaded when first needed: the views import the wire schemas, which are built from this registry.
  const [{ noticeContent }, { executionView }] = await Promise.all([import("../content"), import("../../tasks/views")]);
  const content = await noticeContent(notice, d);
  return chatMessage({
    event: notice.event,
    title: content.title,
    watch: d.task.name,
    answer: content.answer,
    confidence: executionView(d.execution).result?.confidence ?? null,
    sources: content.sources,
    url: watchUrl(d.task),
  });
}

export const testMessage = (task: TestTask) =>
  chatMessage({
    event: "task.test",
    title: `Test notification for “${task.name}”`,
    watch: task.name,
    answer: "This is a test. When the condition of this watch is met, a message like this one arrives here.",
    sources: [],
    url: watchUrl(task),
  });

/** Where a send record says it went: the channel's summary, secrets redacted by the spec's own rule. */
const recipientOf = (spec: ChannelSpec, config: Record<string, unknown>) => spec.summary(config).slice(0, 500);

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
  send(d: Delivery, target: T): Promise<Attempted>;
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
  if ("existing" in claim) return { status: claim.existing.status, retry: false };
  const sent = await a.send(d, target);
  await settleAttempt(claim.id, sent.status, sent.error);
  return {
    status: sent.status,
    retry: sent.status === "failed" && !sent.permanent && a.attempt <= RETRY_DELAYS_MS.length,
    retryAfterMs: sent.retryAfterMs,
  };
}

export function chatChannel<
  const T extends NotificationType,
  S extends z.ZodType<{ type: T } & Record<string, unknown>>,
>(def: {
  spec: ChannelSpec & { type: T };
  schema: S;
  check(config: z.output<S>): z.output<S>;
  request(message: ChatMessage, config: z.output<S>): ChatRequest;
}) {
  type C = z.output<S>;
  const attempt = async (message: ChatMessage, config: C): Promise<Attempted> => {
    const req = def.request(message, config);
    return send(req.url, { body: JSON.stringify(req.body), headers: req.headers, trusted: req.trusted });
  };
  return defineChannel<T, S>({
    type: def.spec.type,
    spec: def.spec,
    schema: def.schema,
    check: def.check,
    retryDelaysMs: RETRY_DELAYS_MS,
    deliver: (executionId, notice, n, followId) =>
      attemptDelivery({
        type: def.spec.type,
        executionId,
        notice,
        attempt: n,
        target: (d) => channelTarget<C>(d, def.spec.type, followId),
        recipient: (t) => recipientOf(def.spec, redactedView(def.spec, t.config)),
        send: async (d, t) => attempt(await noticeMessage(notice, d), t.config),
      }),
    async test(user, task, config) {
      const claim = await claimAttempt({
        user_id: user.id,
        task_id: task.id,
        execution_id: null,
        event: "task.test",
        notification_type: def.spec.type,
        recipient: recipientOf(def.spec, redactedView(def.spec, config)),
        attempt: 1,
      });
      if ("existing" in claim) return { status: claim.existing.status, error: claim.existing.error_message };
      const sent = await attempt(testMessage(task), config);
      await settleAttempt(claim.id, sent.status, sent.error);
      return { status: sent.status, error: sent.error };
    },
  });
}
