/**
 * The run workflow (server/runs/workflow.ts) as Inngest functions: each engine primitive maps onto Inngest's step
 * tools, follow-ups become events whose ids make them idempotent, and flow control comes from the same config as
 * the embedded driver.
 */
import { env } from "../server/env";
import {
  digestRun,
  emailDelivery,
  flowControl,
  followUpId,
  retentionRun,
  watchRun,
  webhookDelivery,
  type WorkflowStep,
} from "../server/runs/workflow";
import type { Notice } from "../server/notify/events";
import { events, inngest } from "./client";

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

export const webhookDeliveryRun = inngest.createFunction(
  { id: "watch-webhook-delivery", triggers: [{ event: events.webhookDeliver }] },
  async ({ event, step }) => {
    const { executionId, notice, followId } = event.data as { executionId: string; notice: Notice; followId?: string };
    return webhookDelivery(adapt(step as unknown as InngestStep), executionId, notice, followId);
  },
);

export const emailDeliveryRun = inngest.createFunction(
  { id: "watch-email-delivery", triggers: [{ event: events.emailDeliver }] },
  async ({ event, step }) => {
    const { executionId, notice, followId } = event.data as { executionId: string; notice: Notice; followId?: string };
    return emailDelivery(adapt(step as unknown as InngestStep), executionId, notice, followId);
  },
);

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
  webhookDeliveryRun,
  emailDeliveryRun,
  dailyDigest,
  dailyRetention,
];
