/**
 * What a run announces: webhook `type` values, email subjects and send records' `event`. A run's notices
 * are decided when it is recorded (server/runs/steps.ts) and delivered by the run workflow, each by email and webhook.
 */
export const WATCH_EVENTS = [
  "task.condition_met",
  "task.condition_retracted",
  "task.run_failed",
  "task.run_recovered",
  "account.budget_exhausted",
] as const;
export type WatchEvent = (typeof WATCH_EVENTS)[number];

/** An event with what its payload adds to `data.task` and `data.execution`. */
export type Notice =
  | { event: "task.condition_met" }
  | { event: "task.condition_retracted"; retracted_execution_id: string }
  | { event: "task.run_failed"; consecutive_failures: number }
  | { event: "task.run_recovered" }
  /** The first run refused this period for the monthly run budget. */
  | { event: "account.budget_exhausted"; runs_limit: number; resumes_at: string };

/** Every kind of send record: a run's events, a test send, an address verification, a follow's confirmation. */
export const SEND_EVENTS = [
  ...WATCH_EVENTS,
  "task.test",
  "email.verification",
  "follow.confirmation",
  "digest.daily",
] as const;
export type SendEvent = (typeof SEND_EVENTS)[number];

/**
 * Step and workflow ids per event. A finding's keep the ids they had before there were other events, so a run
 * recovered across an upgrade replays its recorded steps in place.
 */
export const eventSuffix = (event: WatchEvent) => (event === "task.condition_met" ? "" : `:${event}`);

/**
 * Stable per execution and event: a retry or a redelivery carries the same id, so receivers can drop duplicates (a
 * webhook's message id; with the follower's audience, a chat message's id).
 */
export const messageId = (executionId: string, event: WatchEvent) =>
  `msg_${executionId}${eventSuffix(event).replace(":", "_")}`;

/** Events about the watch or the account itself, mailed to the account's own address rather than the watch's channel. */
export const toAccount = (event: WatchEvent) =>
  event === "task.run_failed" || event === "task.run_recovered" || event === "account.budget_exhausted";

/** What followers of a public watch receive: its findings and their retractions. */
export const forFollowers = (event: WatchEvent) =>
  event === "task.condition_met" || event === "task.condition_retracted";

/** Each kind of send in words, as people read it: the notification history, the email's verdict strip. */
export const EVENT_LABELS: Record<SendEvent, string> = {
  "task.condition_met": "Condition met",
  "task.condition_retracted": "Retracted",
  "task.run_failed": "Failing",
  "task.run_recovered": "Recovered",
  "account.budget_exhausted": "Monthly checks used up",
  "task.test": "Test",
  "email.verification": "Address confirmation",
  "follow.confirmation": "Follow confirmation",
  "digest.daily": "Daily digest",
};
