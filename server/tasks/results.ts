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
