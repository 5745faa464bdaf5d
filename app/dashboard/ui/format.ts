/** What the dashboard says about a watch's runs, shared by its server and browser components. */
import type { TaskView } from "@/server/tasks/schemas";

type Execution = NonNullable<TaskView["last_execution"]>;

/**
 * The last check's result in words. "met · held" is a finding the watch's bounds kept back (nobody was told yet);
 * "met" alone was sent, or confirms a finding that was.
 */
export type Outcome = "met" | "met · held" | "not met" | "failed" | "running" | "never run";

export function outcomeOf(last: Execution | null | undefined): Outcome {
  if (!last) return "never run";
  if (last.status === "pending" || last.status === "running") return "running";
  if (last.status === "failed" || last.status === "cancelled") return "failed";
  if (!last.result?.condition_met) return "not met";
  return last.result.gate && !last.result.gate.passed ? "met · held" : "met";
}

/** An open run (pending or running): the page refreshes itself and Run now waits for it. */
export const isOpen = (e: Pick<Execution, "status"> | null | undefined) =>
  e?.status === "pending" || e?.status === "running";

export function duration(started: string, completed: string | null): string {
  if (!completed) return "—";
  const ms = new Date(completed).getTime() - new Date(started).getTime();
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** "92% sure": said only of a met finding (under a not-met answer a percentage reads as doubt). */
export const sureness = (confidence: number) => `${Math.round(confidence * 100)}% sure`;
