/**
 * A run's result, assembled in one place from the agent's decision: what a recorded run stores as its `result` (and
 * every view reads back, server/tasks/views.ts) and what a preview answers, so the two never drift.
 */
import type { Gate } from "../runs/trust";
import { ExecutionResultSchema } from "./schemas";

type Decided = {
  condition_met: boolean;
  answer: string;
  evidence: string;
  confidence: number;
  next_run_reason: string;
};
type Ran = { model: string; usage: { input_tokens: number; output_tokens: number }; duration_ms: number };

/** The stored result of a run: the decision's words, the run's model and cost, the gate of a new finding. */
export function runResult(d: Decided, run: Ran, gate: Gate | null, retractedExecutionId: string | null = null) {
  return ExecutionResultSchema.parse({
    condition_met: d.condition_met,
    answer: d.answer,
    evidence: d.evidence,
    confidence: d.confidence,
    model: run.model,
    usage: run.usage,
    duration_ms: run.duration_ms,
    next_run_reason: d.next_run_reason,
    gate,
    retracted_execution_id: retractedExecutionId,
  });
}

/** What a card shows of an answer: at most this many characters. */
export const LATEST_ANSWER_MAX = 200;

/** Abbreviations and initials whose full stop ends no sentence ("e.g.", "approx.", "J. R. R."). */
const ABBREVIATION =
  /(?:\b(?:e\.g|i\.e|etc|vs|approx|incl|no|nr|mr|mrs|ms|dr|st|jr|sr|inc|ltd|co)|(?:^|\s)\p{Lu})\.$/iu;

/**
 * The first sentence of an answer (Markdown) as one plain line, for cards and lists: its first line with text (not a
 * heading, unless there is nothing else), without Markdown marks (a link keeps its text), up to the first sentence end (one an abbreviation or an initial does not
 * make); longer than LATEST_ANSWER_MAX, it is cut on a word with an ellipsis. Null when there is no text.
 */
export function firstSentence(markdown: string): string | null {
  const lines = markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\*\*|__|~~|`/g, "")
    .split("\n")
    .filter((l) => l.trim());
  // A heading is a title, not an answer: the first other line, unless there is none.
  const line = (lines.find((l) => !/^\s*#{1,6}\s/.test(l)) ?? lines[0])
    ?.replace(/^\s*(?:#{1,6}\s+|[-*+>]\s+|\d+[.)]\s+)?/, "")
    .trim();
  if (!line) return null;
  let sentence = line;
  for (const end of line.matchAll(/[.!?…](?=\s|$)/g)) {
    const upTo = line.slice(0, end.index + 1);
    if (end[0] === "." && ABBREVIATION.test(upTo)) continue;
    sentence = upTo;
    break;
  }
  if (sentence.length <= LATEST_ANSWER_MAX) return sentence;
  const cut = sentence.slice(0, LATEST_ANSWER_MAX - 1);
  const onWord = cut.replace(/\s+\S*$/, "");
  return `${(onWord.length > LATEST_ANSWER_MAX / 2 ? onWord : cut).replace(/[\s,;:.–—-]+$/, "")}…`;
}
