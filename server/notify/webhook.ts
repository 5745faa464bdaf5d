/**
 * Webhooks, signed with Standard Webhooks and the receiving account's `whsec_` secret: the owner's for
 * the watch's own webhook, a follower's for theirs. The webhook-id is stable per execution and event, so
 * receivers can drop the retries they already processed.
 */
import { Webhook } from "standardwebhooks";
import { env } from "../env";
import type { Execution, Task, User } from "../db";
import { BlockedAddressError, guardedFetch } from "../net/guarded-fetch";
import { attemptDelivery, channelTarget } from "./chat";
import { TIMEOUT_MS } from "./transport";
import { executionView, publicExecutionView } from "../tasks/views";
import { signingSecrets } from "../users/service";
import { claimAttempt, settleAttempt, type Delivery, type DeliveryOutcome } from "./deliveries";
import { eventSuffix, type Notice, type WatchEvent } from "./events";
import { watchUrl } from "./links";

/** `publicView`: what a follower sees of the run (no model, usage or error text). */
export function webhookPayload(
  task: Task,
  execution: Execution,
  notice: Notice | { event: "task.test" },
  publicView = false,
  now = new Date(),
) {
  const e = publicView ? publicExecutionView(execution) : executionView(execution);
  const { event, ...extra } = notice;
  return {
    type: event,
    timestamp: now.toISOString(),
    data: {
      task: {
        id: task.id,
        name: task.name,
        search_query: task.search_query,
        condition_description: task.condition_description,
        state: task.state,
        next_run: task.next_run?.toISOString() ?? null,
        url: watchUrl(task),
      },
      execution: {
        id: e.id,
        status: e.status,
        started_at: e.started_at,
        completed_at: e.completed_at,
        result: e.result,
        error_message: e.error_message,
        notification: e.notification,
        grounding_sources: e.grounding_sources,
      },
      ...extra,
    },
  };
}

/** Stable per execution and event: a retry or a redelivery carries the same id, so receivers can drop duplicates. */
export const messageId = (executionId: string, event: WatchEvent) =>
  `msg_${executionId}${eventSuffix(event).replace(":", "_")}`;

type Sent = { status: "sent" | "failed"; error: string | null; permanent: boolean };

type Endpoint = { url?: string | null; method?: string | null; headers?: unknown };

async function post(user: User, config: Endpoint, msgId: string, payload: unknown): Promise<Sent> {
  const url = config.url ?? "";
  if (!url.startsWith("https://") && !env.WEBHOOK_ALLOW_PRIVATE)
    return { status: "failed", error: "webhook url must use https", permanent: true };
  const body = JSON.stringify(payload);
  const timestamp = new Date();
  // During a rotation's overlap both secrets sign: `v1,<new> v1,<old>` (Standard Webhooks allows several).
  const signatures = (await signingSecrets(user)).map((secret) => new Webhook(secret).sign(msgId, timestamp, body));
  const headers: Record<string, string> = {
    ...((config.headers as Record<string, string> | null) ?? {}),
    "content-type": "application/json",
    "user-agent": "Watch-Webhooks/1.0",
    "webhook-id": msgId,
    "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
  try {
    const res = await guardedFetch(url, {
      method: config.method ?? "POST",
      headers,
      body,
      timeoutMs: TIMEOUT_MS,
      maxBytes: 64 * 1024,
      allowPrivate: env.WEBHOOK_ALLOW_PRIVATE,
    });
    if (res.status >= 200 && res.status < 300) return { status: "sent", error: null, permanent: false };
    if (res.status >= 300 && res.status < 400)
      return { status: "failed", error: `HTTP ${res.status}: redirects are not followed`, permanent: false };
    return { status: "failed", error: `HTTP ${res.status}`, permanent: res.status === 410 };
  } catch (e) {
    if (e instanceof BlockedAddressError) return { status: "failed", error: `refused: ${e.message}`, permanent: true };
    const cause = (e as { cause?: { message?: string } }).cause?.message;
    return { status: "failed", error: `${(e as Error).message}${cause ? ` (${cause})` : ""}`, permanent: false };
  }
}

/** Where a run's notice goes by webhook: the watch's own channel, or a confirmed follower's (signed with their secret). */
export type WebhookTarget = { audience: string; user: User; endpoint: Endpoint; publicView: boolean };

export async function webhookTarget(d: Delivery, followId?: string | null): Promise<WebhookTarget | null> {
  const target = await channelTarget<Endpoint & { type: string }>(d, "webhook", followId);
  return target && { ...target, endpoint: target.config, publicView: target.audience !== "owner" };
}

/** One attempt of a run's notice by webhook; retried by the workflow while it fails for a reason that may pass. */
export const deliverWebhook = (
  executionId: string,
  notice: Notice,
  attempt: number,
  followId?: string | null,
): Promise<DeliveryOutcome> =>
  attemptDelivery({
    type: "webhook",
    executionId,
    notice,
    attempt,
    target: (d) => webhookTarget(d, followId),
    recipient: (t) => t.endpoint.url ?? "",
    send: (d, t) => deliverTo(d, t, notice),
  });

/** A run's notice, posted to a target (the caller claims and settles the attempt). */
export const deliverTo = (d: Delivery, target: WebhookTarget, notice: Notice) =>
  post(
    target.user,
    target.endpoint,
    messageId(d.execution.id, notice.event),
    webhookPayload(d.task, d.execution, notice, target.publicView),
  );

/** "Send test notification" for a webhook: a signed `task.test` event, recorded in the history. */
export async function sendTestWebhook(user: User, task: Task, config: Endpoint) {
  const sample = {
    id: "00000000-0000-0000-0000-000000000000",
    task_id: task.id,
    status: "success",
    started_at: new Date(),
    completed_at: new Date(),
    created_at: new Date(),
    condition_met: true,
    result: { condition_met: true, answer: "This is a test notification.", evidence: "", confidence: 1 },
    error_message: null,
    notification: { title: `Test notification for “${task.name}”`, markdown: "This is a test notification." },
    grounding_sources: [],
  } as unknown as Execution;
  const claim = await claimAttempt({
    user_id: user.id,
    task_id: task.id,
    execution_id: null,
    event: "task.test",
    notification_type: "webhook",
    recipient: config.url ?? "",
    attempt: 1,
  });
  if ("existing" in claim) return { status: claim.existing.status, error: claim.existing.error_message };
  const sent = await post(user, config, `msg_test_${claim.id}`, webhookPayload(task, sample, { event: "task.test" }));
  await settleAttempt(claim.id, sent.status, sent.error);
  return { status: sent.status, error: sent.error };
}
