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
  /** Set on a run that told its finding (its gate passed, or its owner sent it anyway). */
  notification?: unknown;
};

/**
 * The last check's result in words. "met · held" is a finding the watch's bounds kept back (nobody was told yet);
 * "met" alone was sent (by the run, or by its owner anyway), or confirms a finding that was.
 */
export type Outcome = "met" | "met · held" | "not met" | "failed" | "running" | "never run";

export function outcomeOf(last: Run | null | undefined): Outcome {
  if (!last) return "never run";
  if (last.status === "pending" || last.status === "running") return "running";
  if (last.status === "failed" || last.status === "cancelled") return "failed";
  if (!last.result?.condition_met) return "not met";
  return last.result.gate && !last.result.gate.passed && !last.notification ? "met · held" : "met";
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

/**
 * Why checks fail, as the owner is told: `ours` — the model or search provider, its quota, a timeout, the service's
 * own configuration — is retried by Watch and needs nothing from the owner; `yours` — a site that cannot be read, a
 * condition the model cannot evaluate — needs the owner to change the watch.
 */
export const RUN_FAILURES = {
  not_configured: { failure: "ours", reason: "No AI model is configured on this server yet." },
  quota: { failure: "ours", reason: "The AI model provider is rate limiting this server or its quota is spent." },
  timeout: { failure: "ours", reason: "The check took too long and was stopped." },
  search: { failure: "ours", reason: "The web search provider is failing." },
  model: { failure: "ours", reason: "The AI model provider is failing." },
  model_answer: { failure: "ours", reason: "The AI model gave an answer that could not be read." },
  interrupted: { failure: "ours", reason: "The check was interrupted." },
  blocked_site: {
    failure: "yours",
    reason: "A site this watch reads cannot be reached from the public internet: point it at a public page.",
  },
  unreadable_condition: {
    failure: "yours",
    reason: "The condition could not be evaluated: say more precisely what counts as met.",
  },
  other: { failure: "ours", reason: "The check failed." },
} as const satisfies Record<string, { failure: "ours" | "yours"; reason: string }>;
export type RunFailure = keyof typeof RUN_FAILURES;

/**
 * What a failed run's error says failed, the one place it is decided (the verdict's `cant_check` reads it). Errors are
 * the service's own texts (server/agent, server/runs): the provider's answer follows "Model provider error".
 */
export function runFailure(error: string | null | undefined): RunFailure {
  const e = error ?? "";
  if (/no (ai )?model|not configured|needs [A-Z_]+_KEY|no built-in web search|No web search configured/i.test(e))
    return "not_configured";
  if (/could not (be )?evaluat|cannot (be )?evaluat|unreadable condition/i.test(e)) return "unreadable_condition";
  if (/non-public address|is not a public address|only http\(s\) pages/i.test(e)) return "blocked_site";
  if (/timed out|timeout/i.test(e)) return "timeout";
  if (/HTTP 429|rate limit|quota/i.test(e)) return "quota";
  if (/search provider/i.test(e)) return "search";
  if (/invalid decision|no JSON object/i.test(e)) return "model_answer";
  if (/^Model provider error/.test(e)) return "model";
  if (/superseded|interrupted|stuck/i.test(e)) return "interrupted";
  return "other";
}
