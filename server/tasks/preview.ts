/**
 * What the agent would answer now for a watch that is not saved: one run with no history, counted
 * against the monthly budget, nothing recorded but the usage.
 */
import { AgentError, runAgent, withAgentSlot } from "../agent";
import { withDomain } from "../agent/sources";
import { DomainError } from "../errors";
import type { User } from "../db";
import { transaction } from "../db/sql";
import { gate } from "../runs/trust";
import { addTokens, budgetExhausted, countRun } from "../usage";
import { runResult } from "./results";
import { TRUST_DEFAULTS } from "./schemas";

export type PreviewInput = {
  search_query: string;
  condition_description?: string;
  min_confidence?: number;
  min_sources?: number;
};

export async function previewTask(user: User, input: PreviewInput) {
  const now = new Date();
  const counted = await transaction((query) => countRun(query, user.id, now));
  if (!counted) throw new DomainError("forbidden", budgetExhausted(now));
  const bounds = {
    min_confidence: input.min_confidence ?? TRUST_DEFAULTS.min_confidence,
    min_sources: input.min_sources ?? TRUST_DEFAULTS.min_sources,
  };
  let run;
  try {
    run = await withAgentSlot(user.id, () =>
      runAgent({
        watch: {
          id: "preview",
          user_id: user.id,
          name: input.search_query.slice(0, 200),
          search_query: input.search_query,
          condition_description: input.condition_description ?? input.search_query,
          min_sources: bounds.min_sources,
          min_interval_minutes: null,
          max_interval_minutes: null,
        },
        lastKnownState: null,
        notified: null,
        recent: [],
        now,
      }),
    );
  } catch (e) {
    if (e instanceof AgentError && e.notConfigured) throw new DomainError("unavailable", e.message);
    if (e instanceof AgentError) throw new DomainError("upstream_failed", e.message);
    throw e;
  }
  await transaction((query) => addTokens(query, user.id, now, run.usage));
  const d = run.decision;
  // With no history every finding the agent would tell is new: would it be sent?
  const result = runResult(d, run, d.finding?.notify ? gate(d, bounds) : null);
  return {
    condition_met: result.condition_met,
    answer: result.answer,
    evidence: result.evidence,
    confidence: result.confidence,
    sources: d.sources.map(withDomain),
    next_run: d.next_run.toISOString(),
    next_run_reason: result.next_run_reason,
    gate: result.gate,
    model: run.model,
    usage: run.usage,
    duration_ms: result.duration_ms,
  };
}
