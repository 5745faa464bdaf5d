/**
 * Status pills: one small coloured label per status, the same tone for the same meaning on every page. Running
 * has a colour of its own and a spinner; paused is amber; met is green; failed is red.
 */
import type { ReactNode } from "react";
import type { Outcome } from "@/lib/outcome";
import type { TaskView } from "@/server/tasks/schemas";
import { VERDICT_WORDS, type VerdictState } from "@/server/tasks/verdict";

export type Tone = "neutral" | "accent" | "ok" | "warn" | "danger" | "running" | "violet";

export function Pill({
  tone = "neutral",
  size,
  children,
  testId,
  mark,
}: {
  tone?: Tone;
  size?: "large";
  children: ReactNode;
  testId?: string;
  /** The pill carries a glyph of its own (✓, ✗) instead of the tone's dot. */
  mark?: boolean;
}) {
  const className = ["pill", size, mark ? "bare" : null].filter(Boolean).join(" ");
  return (
    <span className={className} data-tone={tone} data-testid={testId}>
      {tone === "running" ? <span className="spinner" aria-hidden /> : null}
      {children}
    </span>
  );
}

const STATE_TONE: Record<TaskView["state"], Tone> = { active: "ok", paused: "warn", completed: "violet" };

/** A watch's state: active, paused or completed. */
export const StatePill = ({ state }: { state: TaskView["state"] }) => <Pill tone={STATE_TONE[state]}>{state}</Pill>;

const OUTCOME_TONE: Record<Outcome, Tone> = {
  met: "ok",
  "met · held": "warn",
  "not met": "neutral",
  failed: "danger",
  running: "running",
  "never run": "neutral",
};

/** The last check's result (see outcomeOf). */
export const OutcomePill = ({ outcome }: { outcome: Outcome }) => <Pill tone={OUTCOME_TONE[outcome]}>{outcome}</Pill>;

const EXECUTION_TONE: Record<NonNullable<TaskView["last_execution"]>["status"], Tone> = {
  pending: "running",
  running: "running",
  success: "ok",
  failed: "danger",
  cancelled: "neutral",
};

/** One run's status: pending, running, success, failed, cancelled. */
export const ExecutionPill = ({ status }: { status: keyof typeof EXECUTION_TONE }) => (
  <Pill tone={EXECUTION_TONE[status]}>{status}</Pill>
);

const SEND_MARK = {
  sent: { tone: "ok", mark: "✓", word: "Delivered" },
  failed: { tone: "danger", mark: "✗", word: "Failed" },
  skipped: { tone: "warn", mark: "–", word: "Not sent" },
} as const;

/** A delivery's outcome, marked as a webhook log marks it: ✓ Delivered, ✗ Failed, – Not sent (held back, a cap). */
export const DeliveryMark = ({ status }: { status: keyof typeof SEND_MARK }) => (
  <Pill tone={SEND_MARK[status].tone} mark>
    <span aria-hidden>{SEND_MARK[status].mark}</span> {SEND_MARK[status].word}
  </Pill>
);

/** Each verdict state in words and its tone: the one vocabulary of every page and card. */
export const VERDICT_STATES: Record<VerdictState, { word: string; tone: Tone }> = {
  met: { word: VERDICT_WORDS.met, tone: "ok" },
  not_yet: { word: VERDICT_WORDS.not_yet, tone: "neutral" },
  held: { word: VERDICT_WORDS.held, tone: "warn" },
  paused: { word: VERDICT_WORDS.paused, tone: "warn" },
  cant_check: { word: VERDICT_WORDS.cant_check, tone: "danger" },
  first_check: { word: VERDICT_WORDS.first_check, tone: "running" },
  resolved: { word: VERDICT_WORDS.resolved, tone: "violet" },
};

/** A watch's verdict in one word or two: Met, Not yet, Found, not sent, Paused, Can't check, First check, Resolved. */
export const VerdictPill = ({ state, size }: { state: VerdictState; size?: "large" }) => (
  <Pill tone={VERDICT_STATES[state].tone} size={size} testId="verdict-state">
    {VERDICT_STATES[state].word}
  </Pill>
);
