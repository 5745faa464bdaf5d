/** The Inngest driver: the Scheduler as events (idempotent by id); the workflow itself runs in inngest/functions.ts. */
import { events, inngest } from "../../inngest/client";
import type { Scheduler } from "../scheduler";
import { armed, digestArmed, followUpId, retentionArmed } from "./workflow";

export const inngestScheduler: Scheduler = {
  name: "inngest",
  arm: async (watch, at) => {
    const event = armed(watch.id, watch.user_id, at.toISOString());
    await inngest.send({ id: followUpId(event), ...event });
  },
  disarm: async (taskId) => {
    await inngest.send({ name: events.disarmed, data: { taskId } });
  },
  runNow: async (watch, executionId) => {
    await inngest.send({
      id: `exec:${executionId}`,
      name: events.runRequested,
      data: { taskId: watch.id, userId: watch.user_id, executionId },
    });
  },
  cancelRun: async (executionId) => {
    await inngest.send({ name: events.runCancelled, data: { executionId } });
  },
  armDigest: async (userId, at) => {
    const event = digestArmed(userId, at.toISOString());
    await inngest.send({ id: followUpId(event), ...event });
  },
  disarmDigest: async (userId, at) => {
    await inngest.send({ name: events.digestDisarmed, data: { userId, at: at.toISOString() } });
  },
  armRetention: async (at) => {
    const event = retentionArmed(at.toISOString());
    await inngest.send({ id: followUpId(event), ...event });
  },
  // Runs happen on the Inngest server; this process only sends events, so there is nothing local to check.
  health: async () => "ok: runs on Inngest",
};
