/**
 * The Inngest driver: its client and the events of the agent loop, and the Scheduler as events (idempotent by id). The
 * workflow itself runs in inngest/functions.ts, which builds its functions on this client (used when the Inngest
 * driver is configured).
 */
import { Inngest } from "inngest";
import type { Scheduler } from "../scheduler";
import { armed, digestArmed, findingSent, followUpId, retentionArmed } from "./workflow";

export const inngest = new Inngest({ id: "watch" });

export const events = {
  /** A watch should run at `at` (ISO). Cancelled by `disarmed` for the same watch. */
  armed: "watch/armed",
  /** The watch was paused, completed or deleted. */
  disarmed: "watch/disarmed",
  /** "Run now": start this pending execution. */
  runRequested: "watch/run.requested",
  /** An open execution was superseded (forced re-run, deleted watch). */
  runCancelled: "watch/run.cancelled",
  // A run's notice on a channel: `watch/<channel type>.deliver` (server/runs/workflow.ts, deliverEvent).
  /** A user's daily digest is due at `at`; cancelled by `digestDisarmed` for the same user and time. */
  digestArmed: "watch/digest.armed",
  digestDisarmed: "watch/digest.disarmed",
  /** The daily retention job is due at `at`. */
  retentionArmed: "watch/retention.armed",
  /** A held finding its owner sent anyway: announce the run's finding. */
  findingSent: "watch/finding.sent",
} as const;

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
  sendFinding: async (executionId, channels) => {
    const event = findingSent(executionId, channels);
    await inngest.send({ id: followUpId(event), ...event });
  },
  // Runs happen on the Inngest server; this process only sends events, so there is nothing local to check.
  health: async () => "ok: runs on Inngest",
};
