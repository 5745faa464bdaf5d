/** The Inngest client and the events of the agent loop (used when the Inngest driver is configured). */
import { Inngest } from "inngest";

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
} as const;
