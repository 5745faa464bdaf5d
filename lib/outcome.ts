/**
 * A run's result in words, the one place it is decided: the dashboard's pills, the public pages, the watch page's
 * failure banner and (through the SDK) `watchctl` all say it from here. Pure, with structural types, so browser
 * components and the SDK can use it too.
 */

/** The failed run that sends task.run_failed (once per streak), and from which the dashboard says a watch is failing. */
export const FAILED_NOTICE_AFTER = 3;

type Run = {
  status: "pending" | "running" | "success" | "failed" | "cancelled";
  result?: { condition_met: boolean; gate?: { passed: boolean } | null } | null;
};

/**
 * The last check's result in words. "met · held" is a finding the watch's bounds kept back (nobody was told yet);
 * "met" alone was sent, or confirms a finding that was.
 */
export type Outcome = "met" | "met · held" | "not met" | "failed" | "running" | "never run";

export function outcomeOf(last: Run | null | undefined): Outcome {
  if (!last) return "never run";
  if (last.status === "pending" || last.status === "running") return "running";
  if (last.status === "failed" || last.status === "cancelled") return "failed";
  if (!last.result?.condition_met) return "not met";
  return last.result.gate && !last.result.gate.passed ? "met · held" : "met";
}

/** An open run (pending or running): pages refresh themselves and Run now waits for it. */
export const isOpen = (e: Pick<Run, "status"> | null | undefined) => e?.status === "pending" || e?.status === "running";

/** Runs that failed in a row, newest first, up to the latest one that succeeded (cancelled ones do not count). */
export function failureStreak(newestFirst: Pick<Run, "status">[]): number {
  const settled = newestFirst.filter((e) => e.status === "success" || e.status === "failed");
  const firstSuccess = settled.findIndex((e) => e.status === "success");
  return firstSuccess === -1 ? settled.length : firstSuccess;
}

/** Whether a streak of failures is one the owner is told about (and the dashboard shows a banner for). */
export const isFailing = (streak: number) => streak >= FAILED_NOTICE_AFTER;
