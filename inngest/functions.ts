/**
 * The run workflow (server/runs/workflow.ts) as Inngest functions: each engine primitive maps onto Inngest's step
 * tools, follow-ups become events whose ids make them idempotent, and flow control comes from the same config as
 * the embedded driver.
 */
import { env } from "../server/env";
import {
  channelDelivery,
  deliverEvent,
  digestRun,
  findingSentRun,
  flowControl,
  followUpId,
  retentionRun,
  watchRun,
  type WorkflowStep,
} from "../server/runs/workflow";
import { CHANNEL_TYPES, type ChannelType } from "../channels/list";
import type { Notice } from "../server/notify/events";
import { events, inngest } from "../server/runs/inngest";

type InngestStep = {
  run<T>(id: string, fn: () => Promise<T>): Promise<T>;
  sleep(id: string, ms: number): Promise<void>;
  sendEvent(id: string, payload: { id?: string; name: string; data: Record<string, unknown> }): Promise<unknown>;
};

const adapt = (step: InngestStep): WorkflowStep => ({
  run: (id, fn) => step.run(id, fn),
  sleep: (id, ms) => step.sleep(id, ms),
  send: async (id, followUp) => void (await step.sendEvent(id, { id: followUpId(followUp), ...followUp })),
});

const { agentRuns, perUser } = flowControl();
const runConcurrency: [{ limit: number }, { key: string; limit: number }] = [
  { limit: agentRuns },
  { key: "event.data.userId", limit: perUser },
];

export const scheduledRun = inngest.createFunction(
  {
    id: "watch-scheduled-run",
    triggers: [{ event: events.armed }],
    cancelOn: [{ event: events.disarmed, if: "async.data.taskId == event.data.taskId" }],
    concurrency: runConcurrency,
  },
  async ({ event, step }) => {
    const { taskId, at } = event.data as { taskId: string; at: string };
    await step.sleepUntil("wait-next-run", at);
    return watchRun(adapt(step as unknown as InngestStep), taskId, { scheduledFor: new Date(at).getTime() });
  },
);

export const requestedRun = inngest.createFunction(
  {
    id: "watch-requested-run",
    triggers: [{ event: events.runRequested }],
    cancelOn: [{ event: events.runCancelled, if: "async.data.executionId == event.data.executionId" }],
    concurrency: runConcurrency,
  },
  async ({ event, step }) => {
    const { taskId, executionId } = event.data as { taskId: string; executionId: string };
    return watchRun(adapt(step as unknown as InngestStep), taskId, { executionId });
  },
);

/**
 * A run's notice on one channel: the one delivery workflow, as a function per channel (`watch-email-delivery`,
 * `watch-webhook-delivery`, … the ids the email and webhook functions had before, so runs in flight keep going).
 */
const channelDeliveryRun = (type: ChannelType) =>
  inngest.createFunction(
    { id: `watch-${type}-delivery`, triggers: [{ event: deliverEvent(type) }] },
    async ({ event, step }) => {
      const { executionId, notice, followId } = event.data as {
        executionId: string;
        notice: Notice;
        followId?: string;
      };
      return channelDelivery(adapt(step as unknown as InngestStep), type, executionId, notice, followId);
    },
  );

export const deliveryRuns = Object.fromEntries(CHANNEL_TYPES.map((t) => [t, channelDeliveryRun(t)])) as Record<
  ChannelType,
  ReturnType<typeof channelDeliveryRun>
>;

export const dailyDigest = inngest.createFunction(
  {
    id: "watch-daily-digest",
    triggers: [{ event: events.digestArmed }],
    cancelOn: [
      { event: events.digestDisarmed, if: "async.data.userId == event.data.userId && async.data.at == event.data.at" },
    ],
  },
  async ({ event, step }) => {
    const { userId, at } = event.data as { userId: string; at: string };
    await step.sleepUntil("wait-digest", new Date(Date.parse(at) - env.WATCH_CLOCK_OFFSET_MS));
    return digestRun(adapt(step as unknown as InngestStep), userId, at);
  },
);

/** A held finding its owner sent anyway: its notice to the watch's channels and followers. */
export const findingSent = inngest.createFunction(
  { id: "watch-finding-sent", triggers: [{ event: events.findingSent }] },
  async ({ event, step }) => {
    const { executionId, channels } = event.data as { executionId: string; channels: string[] };
    return findingSentRun(adapt(step as unknown as InngestStep), executionId, channels);
  },
);

/** Inngest keeps its own run history (per its plan's retention): only the service's tables are trimmed. */
export const dailyRetention = inngest.createFunction(
  { id: "watch-daily-retention", triggers: [{ event: events.retentionArmed }] },
  async ({ event, step }) => {
    const { at } = event.data as { at: string };
    await step.sleepUntil("wait-retention", new Date(Date.parse(at) - env.WATCH_CLOCK_OFFSET_MS));
    return retentionRun(adapt(step as unknown as InngestStep), at);
  },
);

export const functions = [
  scheduledRun,
  requestedRun,
  ...Object.values(deliveryRuns),
  findingSent,
  dailyDigest,
  dailyRetention,
];
