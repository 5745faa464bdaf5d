/**
 * The run workflow, written once for both engines (the embedded DBOS driver, `./dbos`, and Inngest, `inngest/`):
 * which steps a watch run takes, in which order, under which stable ids, and what it hands on (the next wake-up, the
 * webhook delivery with its retries). Each engine supplies a `WorkflowStep`: `run` checkpoints a step's result,
 * `sleep` waits durably, `send` starts the named follow-up idempotently (its id derives from the watch and time, or
 * the execution). Adding a step means adding it here, with a new id: recovery replays a run's recorded steps by id
 * and order, so existing ids keep their position.
 */
import { env } from "../env";
import { now } from "../clock";
import { deliverEmail, deliverWebhook, followersOf, planEmail, WEBHOOK_RETRY_DELAYS_MS } from "../notify";
import { sendDigest } from "../notify/digest";
import { nextRetentionAt, pruneExecutions } from "../retention";
import { eventSuffix, forFollowers, type Notice, type WatchEvent } from "../notify/events";
import { beginRun, evaluateRun, recordOutcome, type Recorded, type RunTrigger } from "./steps";
import { addActivityIds, withActivity } from "../observability/context.mjs";
import { countBegun, countRecorded } from "../observability/runs";

export const STEP = {
  begin: "begin",
  evaluate: "evaluate",
  persist: "persist",
  armNext: "arm-next",
  startEmailDelivery: (event: WatchEvent, followId?: string) =>
    `start-email-delivery${eventSuffix(event)}${followId ? `:${followId}` : ""}`,
  startWebhookDelivery: (event: WatchEvent, followId?: string) =>
    `start-webhook-delivery${eventSuffix(event)}${followId ? `:${followId}` : ""}`,
  followers: (event: WatchEvent) => `followers${eventSuffix(event)}`,
  planEmail: "plan-email",
  quietHours: "quiet-hours",
  deliverEmail: "deliver-email",
  /** The later attempts (2, 3 …) of an email skipped for the hourly cap, each after waiting for room. */
  deliverEmailAgain: (attempt: number) => `deliver-email-${attempt}`,
  emailCapWait: (attempt: number) => `email-cap-wait-${attempt}`,
  sendDigest: "send-digest",
  armNextDigest: "arm-next-digest",
  prune: "prune",
  forgetEngineHistory: "forget-engine-history",
  armNextRetention: "arm-next-retention",
  deliverWebhook: (attempt: number) => `deliver-webhook-${attempt}`,
  webhookRetry: (attempt: number) => `webhook-retry-${attempt}`,
} as const;

/** What a workflow hands on to the engine, each idempotent by its id (followUpId). */
export type FollowUp =
  /** The watch's next wake-up (per watch and time). */
  | { name: "watch/armed"; data: { taskId: string; userId: string; at: string } }
  /** The email of a run's notice, after the recipient's quiet hours (per execution, event and recipient). */
  | { name: "watch/email.deliver"; data: Delivery }
  /** The webhook of a run's notice, with its retries (per execution, event and recipient). */
  | { name: "watch/webhook.deliver"; data: Delivery }
  /** A user's daily digest (per user and time). */
  | { name: "watch/digest.armed"; data: { userId: string; at: string } }
  /** The daily retention job (per time: one across replicas). */
  | { name: "watch/retention.armed"; data: { at: string } };

/** One notice of one run for one recipient: the owner, or a follower. */
type Delivery = { executionId: string; notice: Notice; followId?: string };

export interface WorkflowStep {
  /** Runs `fn` once and checkpoints its result; `database` steps are retried while the database is unreachable. */
  run<T>(id: string, fn: () => Promise<T>, opts?: { database?: boolean }): Promise<T>;
  sleep(id: string, ms: number): Promise<void>;
  send(id: string, followUp: FollowUp): Promise<void>;
}

/** The id that makes starting a follow-up twice harmless (DBOS workflow id, Inngest event id). */
export function followUpId(f: FollowUp) {
  const delivery = (d: Delivery) =>
    `${d.executionId}${eventSuffix(d.notice.event)}${d.followId ? `:${d.followId}` : ""}`;
  switch (f.name) {
    case "watch/armed":
      return `run:${f.data.taskId}:${new Date(f.data.at).getTime()}`;
    case "watch/email.deliver":
      return `email:${delivery(f.data)}`;
    case "watch/webhook.deliver":
      return `webhook:${delivery(f.data)}`;
    case "watch/digest.armed":
      return `digest:${f.data.userId}:${new Date(f.data.at).getTime()}`;
    case "watch/retention.armed":
      return `retention:${new Date(f.data.at).getTime()}`;
  }
}

export const digestArmed = (userId: string, at: string): FollowUp => ({
  name: "watch/digest.armed",
  data: { userId, at },
});

export const retentionArmed = (at: string): FollowUp => ({ name: "watch/retention.armed", data: { at } });

export const armed = (taskId: string, userId: string, at: string): FollowUp => ({
  name: "watch/armed",
  data: { taskId, userId, at },
});

/**
 * Flow control, the same for both engines: at most AGENT_CONCURRENCY agent runs at once per process (the agent's
 * slots, handed out round-robin across users), and a user's runs may take at most half of them on Inngest, where
 * the engine itself admits runs.
 */
export const flowControl = () => ({
  agentRuns: env.AGENT_CONCURRENCY,
  perUser: Math.max(1, Math.floor(env.AGENT_CONCURRENCY / 2)),
  /** Runs in flight per process, most of them waiting for an agent slot (DBOS queue). */
  queued: env.AGENT_CONCURRENCY * 4,
});

/** One run of a watch: claim, evaluate, record, re-arm, deliver (its log lines carry the watch's and run's ids). */
export function watchRun(step: WorkflowStep, taskId: string, trigger: RunTrigger) {
  return withActivity({ task_id: taskId }, () => runOnce(step, taskId, trigger));
}

async function runOnce(step: WorkflowStep, taskId: string, trigger: RunTrigger) {
  const begun = await step.run(STEP.begin, async () => countBegun(trigger, await beginRun(taskId, trigger)), {
    database: true,
  });
  if (!begun) return { ran: false as const };
  addActivityIds({ execution_id: begun.executionId });
  if (begun.kind === "over-budget") {
    if (begun.nextRun) await step.send(STEP.armNext, armed(taskId, begun.userId, begun.nextRun));
    await announce(step, begun.executionId, begun.notices);
    return { ran: false as const, nextRun: begun.nextRun };
  }
  const plan = begun;
  const outcome = await step.run(STEP.evaluate, () => evaluateRun(plan));
  const recorded = await step.run(
    STEP.persist,
    async () => countRecorded(plan, outcome, await recordOutcome(taskId, plan.executionId, outcome)),
    { database: true },
  );
  if (recorded.nextRun) await step.send(STEP.armNext, armed(taskId, plan.userId, recorded.nextRun));
  await announce(step, plan.executionId, noticesOf(recorded));
  return { ran: true as const, executionId: plan.executionId, nextRun: recorded.nextRun };
}

/**
 * Each notice by email and by webhook, each delivery a workflow of its own (an email may wait for quiet hours to end,
 * a webhook retries for up to half an hour: both off the run queue); findings and retractions of a public watch also
 * to each follower (who they are is a step, so a recovered run starts the same deliveries).
 */
async function announce(step: WorkflowStep, executionId: string, notices: Notice[]) {
  for (const notice of notices) {
    await step.send(STEP.startEmailDelivery(notice.event), {
      name: "watch/email.deliver",
      data: { executionId, notice },
    });
    await step.send(STEP.startWebhookDelivery(notice.event), {
      name: "watch/webhook.deliver",
      data: { executionId, notice },
    });
    if (!forFollowers(notice.event)) continue;
    const followers = await step.run(STEP.followers(notice.event), () => followersOf(executionId), { database: true });
    for (const followId of followers.email)
      await step.send(STEP.startEmailDelivery(notice.event, followId), {
        name: "watch/email.deliver",
        data: { executionId, notice, followId },
      });
    for (const followId of followers.webhook)
      await step.send(STEP.startWebhookDelivery(notice.event, followId), {
        name: "watch/webhook.deliver",
        data: { executionId, notice, followId },
      });
  }
}

/** Further attempts of a finding's or retraction's email skipped for the hourly cap (each when the window has room). */
export const EMAIL_CAP_RETRIES = 3;

/**
 * A notice's email: now, after the recipient's quiet hours (a durable sleep), or not at all (it goes in their digest).
 * A finding or retraction skipped for the recipient's hourly cap is sent once the hour has room again (a durable
 * sleep, then a new attempt with a send record of its own), so no alert is lost to a busy hour.
 */
export async function emailDelivery(step: WorkflowStep, executionId: string, notice: Notice, followId?: string) {
  const plan = await step.run(STEP.planEmail, () => planEmail(executionId, notice, followId), { database: true });
  if (plan.kind === "none" || plan.kind === "digest") return plan;
  if (plan.kind === "later") await step.sleep(STEP.quietHours, Math.max(0, Date.parse(plan.at) - now().getTime()));
  let outcome = await step.run(STEP.deliverEmail, () => deliverEmail(executionId, notice, followId), {
    database: true,
  });
  for (let attempt = 2; outcome.retryAt && attempt <= 1 + EMAIL_CAP_RETRIES; attempt++) {
    await step.sleep(STEP.emailCapWait(attempt), Math.max(0, Date.parse(outcome.retryAt) - Date.now()));
    outcome = await step.run(
      STEP.deliverEmailAgain(attempt),
      () => deliverEmail(executionId, notice, followId, attempt),
      { database: true },
    );
  }
  return outcome;
}

/** A user's daily digest, then the next day's wake-up. */
export async function digestRun(step: WorkflowStep, userId: string, at: string) {
  const sent = await step.run(STEP.sendDigest, () => sendDigest(userId, at), { database: true });
  if (sent.next) await step.send(STEP.armNextDigest, digestArmed(userId, sent.next));
  return sent;
}

/**
 * A finished workflow's record (its steps' outputs) is kept this long: nothing reads it once the workflow is done,
 * and a run's record is several times the size of its execution (docs/benchmarks.md, Scale).
 */
export const ENGINE_HISTORY_DAYS = 7;

/**
 * The daily retention job (server/retention.ts), then the next day's. An engine that keeps its own record of finished
 * workflows passes `forgetFinished` to trim it to ENGINE_HISTORY_DAYS.
 */
export async function retentionRun(step: WorkflowStep, at: string, forgetFinished?: (before: Date) => Promise<number>) {
  const pruned = await step.run(STEP.prune, () => pruneExecutions({ now: new Date(at) }), { database: true });
  const workflows = forgetFinished
    ? await step.run(
        STEP.forgetEngineHistory,
        () => forgetFinished(new Date(Date.parse(at) - ENGINE_HISTORY_DAYS * 24 * 3_600_000)),
        { database: true },
      )
    : 0;
  await step.send(STEP.armNextRetention, retentionArmed(nextRetentionAt(new Date(at)).toISOString()));
  return { ...pruned, workflows };
}

/** A run recorded before runs had several notices answered `notify` for its finding (a recovery replays that answer). */
const noticesOf = (recorded: Recorded | { notify: boolean; nextRun: string | null }): Notice[] =>
  "notices" in recorded ? recorded.notices : recorded.notify ? [{ event: "task.condition_met" }] : [];

/**
 * A notice's webhook: attempts 1 to 4, retried after 1 min, 5 min and 30 min; every attempt is recorded. (Deliveries
 * started before runs had several notices carry no notice: they were a finding's.)
 */
export async function webhookDelivery(
  step: WorkflowStep,
  executionId: string,
  notice: Notice = { event: "task.condition_met" },
  followId?: string,
) {
  for (let attempt = 1; ; attempt++) {
    const outcome = await step.run(
      STEP.deliverWebhook(attempt),
      () => deliverWebhook(executionId, notice, attempt, followId),
      { database: true },
    );
    if (!outcome.retry) return { attempts: attempt, status: outcome.status };
    await step.sleep(STEP.webhookRetry(attempt), WEBHOOK_RETRY_DELAYS_MS[attempt - 1]!);
  }
}
