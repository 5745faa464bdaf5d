/**
 * A watch's verdict: the one state it is in, decided here for every surface (owner and public views, cards, the badge,
 * the Open Graph image, emails). Pure, with structural types, so pages, emails and the SDK can use it too.
 *
 * One state per case, first match wins:
 *  - `resolved`: completed with its notified finding standing;
 *  - `cant_check`: an active watch whose checks fail (FAILED_NOTICE_AFTER in a row, or every check so far), with whose
 *    the failure is and when the next check retries;
 *  - `held` (the owner's alone): the latest answer found something the watch's bounds held back, with the gate's
 *    reason; anyone else sees what they would see without it;
 *  - `met`: the last notified finding stands (paused or not: the answer is the news);
 *  - `paused`: not checking (paused, or completed without a standing finding), its last answer as of its date;
 *  - `first_check`: no check has answered yet (one is running or pending);
 *  - `not_yet`: checked, nothing found (or what was found was retracted).
 */
import { isFailing, RUN_FAILURES, runFailure } from "../../lib/outcome";

export const VERDICT_STATES = ["met", "not_yet", "held", "paused", "cant_check", "first_check", "resolved"] as const;
export type VerdictState = (typeof VERDICT_STATES)[number];

/**
 * Each state in words, the one vocabulary of every surface: the pill on pages and cards, the badge (in its lower
 * case), the Open Graph image, emails. "Not yet" is never "watching": a paused watch is not watching either.
 */
export const VERDICT_WORDS: Record<VerdictState, string> = {
  met: "Met",
  not_yet: "Not yet",
  held: "Found, not sent",
  paused: "Paused",
  cant_check: "Can't check",
  first_check: "First check",
  resolved: "Resolved",
};

export type Verdict = {
  state: VerdictState;
  /** When this state began (see the schema's description); null where it has no start (`not_yet`). */
  since: string | null;
  /** When the latest answer it shows was checked; null before any. */
  as_of: string | null;
  /** A check is under way now. */
  running: boolean;
  /** `cant_check`: whose the failure is. */
  failure: "ours" | "yours" | null;
  /** `cant_check`: when the next check (the retry) is due; null when none is planned. */
  retry_at: string | null;
  /** `held`: the gate's reason; `cant_check` (owner only): what failed, or what to change, in words. */
  reason: string | null;
};

type When = Date | string | null | undefined;
const iso = (d: When) => (!d ? null : typeof d === "string" ? new Date(d).toISOString() : d.toISOString());

/** What the verdict is decided from: the watch's columns, its standing finding and its open run. */
export type VerdictFacts = {
  state: "active" | "paused" | "completed";
  state_changed_at: When;
  next_run: When;
  /** The standing finding: its status and since when (`resolution` of the views). */
  resolution: { status: "watching" | "met" | "resolved"; since: string | null };
  /** The open run (pending or running), if any. */
  open: { status: string; started_at: When } | null;
  /** When the latest successful check finished (null: none yet). */
  latest_answer_at: When;
  /** When the answer this audience sees was checked (the owner's latest, or the latest not held back). */
  answer_at: When;
  failure_streak: number;
  failing_since: When;
  /** The error of the latest failed check (the owner's; only its class reaches anyone else). */
  last_error: string | null;
  /** The gate's reason while the latest answer is held back; always null for anyone but the owner. */
  held_reason: string | null;
  /** When the held finding was recorded. */
  finding_at: When;
  /** The owner sees the failure's words; anyone else only its class. */
  audience: "owner" | "public";
};

export function verdictOf(f: VerdictFacts): Verdict {
  const base = {
    since: null,
    as_of: iso(f.answer_at),
    running: f.open !== null,
    failure: null,
    retry_at: null,
    reason: null,
  } satisfies Omit<Verdict, "state">;
  if (f.resolution.status === "resolved") return { ...base, state: "resolved", since: f.resolution.since };
  const active = f.state === "active";
  if (active && f.failure_streak > 0 && (isFailing(f.failure_streak) || !f.latest_answer_at)) {
    const failure = RUN_FAILURES[runFailure(f.last_error)];
    return {
      ...base,
      state: "cant_check",
      since: iso(f.failing_since),
      failure: failure.failure,
      retry_at: iso(f.next_run),
      reason: f.audience === "owner" ? failure.reason : null,
    };
  }
  if (f.audience === "owner" && f.held_reason !== null)
    return { ...base, state: "held", since: iso(f.finding_at), reason: f.held_reason };
  if (f.resolution.status === "met") return { ...base, state: "met", since: f.resolution.since };
  if (!active) return { ...base, state: "paused", since: iso(f.state_changed_at) };
  if (!f.latest_answer_at) return { ...base, state: "first_check", since: iso(f.open?.started_at) };
  return { ...base, state: "not_yet" };
}
