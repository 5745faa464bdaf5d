/**
 * The agent loop as Inngest functions, over the same steps as the embedded driver (server/runs/steps.ts):
 * wait until the wake-up, begin, evaluate, persist, arm the next wake-up, deliver.
 */
import { beginRun, evaluateRun, recordOutcome, type RunTrigger } from "../server/runs/steps";
import { deliverEmail, deliverWebhook, WEBHOOK_RETRY_DELAYS_MS } from "../server/notify";
import { events, inngest } from "./client";

type Step = {
  run<T>(id: string, fn: () => Promise<T>): Promise<T>;
  sleep(id: string, ms: number): Promise<void>;
  sendEvent(id: string, payload: { name: string; data: Record<string, unknown> }): Promise<unknown>;
};

/** One run of a watch, shared by both triggers. */
export async function runSteps(step: Step, taskId: string, trigger: RunTrigger) {
  const plan = await step.run("begin", () => beginRun(taskId, trigger));
  if (!plan) return { ran: false };
  const outcome = await step.run("evaluate", () => evaluateRun(plan));
  const recorded = await step.run("persist", () => recordOutcome(taskId, plan.executionId, outcome));
  if (recorded.nextRun)
    await step.sendEvent("arm-next", { name: events.armed, data: { taskId, at: recorded.nextRun } });
  if (recorded.notify) {
    await step.run("deliver-email", () => deliverEmail(plan.executionId));
    for (let attempt = 1; ; attempt++) {
      const delivered = await step.run(`deliver-webhook-${attempt}`, () => deliverWebhook(plan.executionId, attempt));
      if (!delivered.retry) break;
      await step.sleep(`webhook-retry-${attempt}`, WEBHOOK_RETRY_DELAYS_MS[attempt - 1]!);
    }
  }
  return { ran: true, executionId: plan.executionId, nextRun: recorded.nextRun };
}

export const scheduledRun = inngest.createFunction(
  {
    id: "watch-scheduled-run",
    triggers: [{ event: events.armed }],
    cancelOn: [{ event: events.disarmed, if: "async.data.taskId == event.data.taskId" }],
    concurrency: [{ limit: 8 }],
  },
  async ({ event, step }) => {
    const { taskId, at } = event.data as { taskId: string; at: string };
    await step.sleepUntil("wait-next-run", at);
    return runSteps(step as unknown as Step, taskId, { scheduledFor: new Date(at).getTime() });
  },
);

export const requestedRun = inngest.createFunction(
  {
    id: "watch-requested-run",
    triggers: [{ event: events.runRequested }],
    cancelOn: [{ event: events.runCancelled, if: "async.data.executionId == event.data.executionId" }],
  },
  async ({ event, step }) => {
    const { taskId, executionId } = event.data as { taskId: string; executionId: string };
    return runSteps(step as unknown as Step, taskId, { executionId });
  },
);

export const functions = [scheduledRun, requestedRun];
