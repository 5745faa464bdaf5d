/** A watch run's metrics, counted inside the run's claim and record steps: once per run, also when a run is recovered. */
import { metrics } from "./metrics.mjs";
import { log } from "./log.mjs";
import type { Evaluation, OverBudget, Recorded, RunPlan, RunTrigger } from "../runs/steps";

/** After the claim: how late a scheduled run started; a run refused for the monthly budget is an outcome of its own. */
export function countBegun<T extends RunPlan | OverBudget | null>(trigger: RunTrigger, begun: T): T {
  if (!begun) return begun;
  const m = metrics();
  if ("scheduledFor" in trigger) m.runStartDelay.observe(Math.max(0, Date.now() - trigger.scheduledFor) / 1000);
  if (begun.kind === "over-budget") m.runs.inc({ outcome: "over_budget" });
  return begun;
}

/** After the record: the run's outcome and its duration from the claim, counted and logged (with the run's ids). */
export function countRecorded(plan: RunPlan, outcome: Evaluation, recorded: Recorded): Recorded {
  const m = metrics();
  const result = outcome.ok ? "success" : "failed";
  const seconds = (Date.now() - plan.claimedAt) / 1000;
  m.runs.inc({ outcome: result });
  m.runDuration.observe(seconds);
  log.info(
    {
      outcome: result,
      duration_ms: Math.round(seconds * 1000),
      notices: recorded.notices.map((n) => n.event),
      ...(outcome.ok ? {} : { error: outcome.error }),
    },
    "run recorded",
  );
  return recorded;
}
