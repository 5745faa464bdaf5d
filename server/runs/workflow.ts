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
import { followersOf } from "../notify";
import { CHANNEL_TYPES, type ChannelType } from "../../channels/list";
import { deliveryOf } from "../notify/channels";
import { sendDigest } from "../notify/digest";
import { recordNextAttempt, retryWait } from "../notify/deliveries";
import { nextRetentionAt, pruneExecutions } from "../retention";
import { eventSuffix, forFollowers, toAccount, type Notice, type WatchEvent } from "../notify/events";
import { beginRun, evaluateRun, recordOutcome, type Evaluation, type Recorded, type RunTrigger } from "./steps";
import { addActivityIds, withActivity } from "../observability/context.mjs";
import { countBegun, countRecorded } from "../observability/runs";

export const STEP = {
  begin: "begin",
  /** The agent's answer and its record. */
  evaluate: "evaluate",
  /** The record, a step of its own in runs begun before the answer and its record were one step. */
  persist: "persist",
  armNext: "arm-next",
  startDelivery: (type: ChannelType, event: WatchEvent, followId?: string) =>
    `start-${type}-delivery${eventSuffix(event)}${followId ? `:${followId}` : ""}`,
  followers: (event: WatchEvent) => `followers${eventSuffix(event)}`,
  plan: (type: ChannelType) => `plan-${type}`,
  quietHours: "quiet-hours",
  /** Attempt n of a delivery (a channel may keep the ids it had before there was a registry). */
  deliver: (type: ChannelType, attempt: number) =>
    deliveryOf(type)?.stepIds?.attempt(attempt) ?? `deliver-${type}-${attempt}`,
  /** The wait after attempt n before attempt n + 1. */
  retryWait: (type: ChannelType, attempt: number) =>
    deliveryOf(type)?.stepIds?.wait(attempt) ?? `${type}-retry-${attempt}`,
  sendDigest: "send-digest",
  armNextDigest: "arm-next-digest",
  prune: "prune",
  forgetEngineHistory: "forget-engine-history",
  armNextRetention: "arm-next-retention",
} as const;

/** What a workflow hands on to the engine, each idempotent by its id (followUpId). */
export type FollowUp =
  /** The watch's next wake-up (per watch and time). */
  | { name: "watch/armed"; data: { taskId: string; userId: string; at: string } }
  /** A run's notice on one channel, planned, then attempted with retries (per channel, execution, event, recipient). */
  | { name: DeliverEvent; data: Delivery }
  /** A held finding its owner sent anyway: the notice of the run that found it (per execution). */
  | { name: "watch/finding.sent"; data: { executionId: string; channels: string[] } }
  /** A user's daily digest (per user and time). */
  | { name: "watch/digest.armed"; data: { userId: string; at: string } }
  /** The daily retention job (per time: one across replicas). */
  | { name: "watch/retention.armed"; data: { at: string } };

/** One notice of one run for one recipient: the owner, or a follower. */
type Delivery = { executionId: string; notice: Notice; followId?: string };

/** The event (Inngest) that starts a channel's delivery: `watch/email.deliver`, `watch/webhook.deliver`, … */
export type DeliverEvent = `watch/${ChannelType}.deliver`;
export const deliverEvent = (type: ChannelType): DeliverEvent => `watch/${type}.deliver`;
export const channelOfEvent = (name: string) => CHANNEL_TYPES.find((t) => deliverEvent(t) === name);

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
    case "watch/digest.armed":
      return `digest:${f.data.userId}:${new Date(f.data.at).getTime()}`;
    case "watch/retention.armed":
      return `retention:${new Date(f.data.at).getTime()}`;
    case "watch/finding.sent":
      return `sent:${f.data.executionId}`;
    default:
      return `${channelOfEvent(f.name)}:${delivery(f.data)}`;
  }
}

export const digestArmed = (userId: string, at: string): FollowUp => ({
  name: "watch/digest.armed",
  data: { userId, at },
});

export const retentionArmed = (at: string): FollowUp => ({ name: "watch/retention.armed", data: { at } });

export const findingSent = (executionId: string, channels: string[]): FollowUp => ({
  name: "watch/finding.sent",
  data: { executionId, channels },
});

export const armed = (taskId: string, userId: string, at: string): FollowUp => ({
  name: "watch/armed",
  data: { taskId, userId, at },
});

/** How far claims run ahead of the agent's slots: 256 runs in flight at the default AGENT_CONCURRENCY of 8. */
const RUNS_CLAIMED_PER_SLOT = 32;

/**
 * Flow control, the same for both engines: at most AGENT_CONCURRENCY agent runs at once per process (the agent's
 * slots, handed out round-robin across users), and a user's runs may take at most half of them on Inngest, where
 * the engine itself admits runs.
 */
export const flowControl = () => ({
  agentRuns: env.AGENT_CONCURRENCY,
  perUser: Math.max(1, Math.floor(env.AGENT_CONCURRENCY / 2)),
  /**
   * Runs claimed and in flight per process (DBOS queue), most of them waiting for an agent slot: enough that a burst
   * of due watches is claimed (started, shown checking) at once instead of each claim waiting for earlier runs' agent
   * work. A waiting run holds only its claim's plan; the agent's slots bound the model calls.
   */
  queued: env.AGENT_CONCURRENCY * RUNS_CLAIMED_PER_SLOT,
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
    await announce(step, begun.executionId, begun.notices, begun.channels);
    return { ran: false as const, nextRun: begun.nextRun };
  }
  const plan = begun;
  // The agent's answer and its record are one step: one checkpoint fewer per run. A crash between the two asks the
  // model again (nothing was recorded); a retry while the database is unreachable records the answer it already has.
  let answer: Evaluation | undefined;
  const evaluated = await step.run(
    STEP.evaluate,
    async (): Promise<Recorded | Evaluation> => {
      answer ??= await evaluateRun(plan);
      return countRecorded(plan, answer, await recordOutcome(taskId, plan.executionId, answer));
    },
    { database: true },
  );
  // A run begun by an earlier version checkpointed the answer alone under this id: its record is the next step.
  const recorded =
    "ok" in evaluated
      ? await step.run(
          STEP.persist,
          async () => countRecorded(plan, evaluated, await recordOutcome(taskId, plan.executionId, evaluated)),
          { database: true },
        )
      : evaluated;
  if (recorded.nextRun) await step.send(STEP.armNext, armed(taskId, plan.userId, recorded.nextRun));
  await announce(step, plan.executionId, noticesOf(recorded), recorded.channels);
  return { ran: true as const, executionId: plan.executionId, nextRun: recorded.nextRun };
}

/**
 * The watch's own channels a notice goes to: those it had when the run was recorded, and for a notice about the watch
 * or the account (failing, recovered, budget spent) also email, to the account's own address. A run recorded before
 * runs kept their channels (no `channels`) announced on every listed channel, each delivery of a channel the watch
 * lacked ending at once: its replay after an upgrade starts the same deliveries, in the same order.
 */
export const ownerChannels = (notice: Notice, channels: readonly string[] | undefined): ChannelType[] =>
  channels === undefined
    ? CHANNEL_TYPES
    : CHANNEL_TYPES.filter((t) => channels.includes(t) || (t === "email" && toAccount(notice.event)));

/**
 * Each notice on each of the watch's channels, each delivery a workflow of its own (an email may wait for quiet
 * hours, a chat message retries for up to half an hour: both off the run queue, and one slow channel never delays
 * another). Findings and retractions of a public watch also go to each follower's channels (who they are is a step,
 * so a recovered run starts the same deliveries).
 */
async function announce(step: WorkflowStep, executionId: string, notices: Notice[], channels?: readonly string[]) {
  for (const notice of notices) {
    for (const type of ownerChannels(notice, channels))
      await step.send(STEP.startDelivery(type, notice.event), {
        name: deliverEvent(type),
        data: { executionId, notice },
      });
    if (!forFollowers(notice.event)) continue;
    const followers = await step.run(STEP.followers(notice.event), () => followersOf(executionId), { database: true });
    for (const type of CHANNEL_TYPES)
      for (const followId of (followers as Partial<Record<ChannelType, string[]>>)[type] ?? [])
        await step.send(STEP.startDelivery(type, notice.event, followId), {
          name: deliverEvent(type),
          data: { executionId, notice, followId },
        });
  }
}

/**
 * A run's notice on one channel, the same workflow for every channel: a plan where the channel has one (email: now,
 * after the recipient's quiet hours, or in the digest), then attempts. A failed attempt is retried after the
 * channel's delays (1 min, 5 min, 30 min; a 429's Retry-After is honoured within the same bounds); an email skipped
 * for the hourly cap is tried again once the hour has room (at most EMAIL_CAP_RETRIES times, ../notify/deliveries). Every attempt is a
 * step with its own send record, so a crash repeats none. (Deliveries started before runs had several notices carry
 * no notice: they were a finding's.)
 */
export async function channelDelivery(
  step: WorkflowStep,
  type: ChannelType,
  executionId: string,
  notice: Notice = { event: "task.condition_met" },
  followId?: string,
) {
  const channel = deliveryOf(type);
  if (!channel) return { attempts: 0, status: "none" as const };
  if (channel.plan) {
    const plan = await step.run(STEP.plan(type), () => channel.plan!(executionId, notice, followId), {
      database: true,
    });
    if (plan.kind === "none" || plan.kind === "digest") return plan;
    if (plan.kind === "later") await step.sleep(STEP.quietHours, Math.max(0, Date.parse(plan.at) - now().getTime()));
  }
  const delays = channel.retryDelaysMs;
  for (let attempt = 1; ; attempt++) {
    const outcome = await step.run(
      STEP.deliver(type, attempt),
      async () => {
        const sent = await channel.deliver(executionId, notice, attempt, followId);
        // The send record says when the next attempt is due (what the watch's delivery state shows).
        if (sent.status !== "none")
          await recordNextAttempt(
            { executionId, event: notice.event, type, attempt, followId },
            retryWait(sent, attempt, delays),
          );
        return sent;
      },
      { database: true },
    );
    const wait = retryWait(outcome, attempt, delays);
    if (wait === null) return { attempts: attempt, status: outcome.status };
    await step.sleep(STEP.retryWait(type, attempt), wait);
  }
}

/**
 * A held finding its owner sent anyway (server/tasks/findings.ts, `sendHeldFinding`): the run's `task.condition_met`
 * on the channels the watch had when it was sent, and to its followers, as a run that cleared the gate announces it
 * (the same deliveries, under the same ids: starting them twice starts them once).
 */
export async function findingSentRun(step: WorkflowStep, executionId: string, channels: string[]) {
  await announce(step, executionId, [{ event: "task.condition_met" }], channels);
  return { executionId };
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
const noticesOf = (recorded: Recorded | { notify: boolean; nextRun: string | null; channels?: undefined }): Notice[] =>
  "notices" in recorded ? recorded.notices : recorded.notify ? [{ event: "task.condition_met" }] : [];
