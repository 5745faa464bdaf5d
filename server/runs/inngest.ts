/** The Inngest driver: the Scheduler as events; the loop itself runs in inngest/functions.ts. */
import { events, inngest } from "../../inngest/client";
import type { Scheduler } from "../scheduler";

export const inngestScheduler: Scheduler = {
  name: "inngest",
  arm: async (taskId, at) => {
    await inngest.send({ name: events.armed, data: { taskId, at: at.toISOString() } });
  },
  disarm: async (taskId) => {
    await inngest.send({ name: events.disarmed, data: { taskId } });
  },
  runNow: async (taskId, executionId) => {
    await inngest.send({ name: events.runRequested, data: { taskId, executionId } });
  },
  cancelRun: async (executionId) => {
    await inngest.send({ name: events.runCancelled, data: { executionId } });
  },
  health: async () => "ok",
};
