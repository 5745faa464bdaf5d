/**
 * The steps of one watch run, shared by both orchestration drivers (the embedded DBOS engine and Inngest).
 * Each is one durable side effect: begin (claim an execution), evaluate (the agent), record (persist the
 * outcome and the next wake-up), then delivery (server/notify). Their results are plain JSON so either
 * engine can checkpoint them.
 */
import { AgentError, runAgent, withAgentSlot, type AgentWatch, type NotifiedFinding, type PriorRun } from "../agent";
import type { Notice } from "../notify/events";
import { transaction, type Query, type TransactionQuery } from "../db/sql";
import { firstSentence, runResult } from "../tasks/results";
import { storable } from "../../lib/text";
import { gate } from "./trust";
import { env } from "../env";
import { addTokensSql, budgetExhausted, countRun, countRunSql, firstRefusalThisPeriod, periodOf } from "../usage";
import { failStuck, isStuck } from "../tasks/executions";
import { log } from "../observability/log.mjs";
import { recordFinding, retractFinding } from "../tasks/findings";
import { isFailing } from "../../lib/outcome";
import { decisionProgress, progressWriter, type ProgressLine } from "./progress";

export type RunTrigger = { executionId: string } | { scheduledFor: number };

export type RunPlan = {
  kind: "run";
  executionId: string;
  /** When the run was claimed (ms). */
  claimedAt: number;
  userId: string;
  watch: AgentWatch;
  lastKnownState: Record<string, unknown> | null;
  notified: NotifiedFinding | null;
  recent: PriorRun[];
};

export type Evaluation =
  | {
      ok: true;
      decision: {
        condition_met: boolean;
        answer: string;
        evidence: string;
        confidence: number;
        sources: { url: string; title: string }[];
        /** The met finding (its key across runs); told when the agent says `notify`, it is new and clears the bounds. */
        finding: { key: string; notify: boolean; notification: { title: string; markdown: string } } | null;
        retracts_previous: boolean;
        next_run: string;
        next_run_reason: string;
        done: boolean;
        last_known_state: Record<string, unknown>;
      };
      model: string;
      usage: { input_tokens: number; output_tokens: number };
      duration_ms: number;
      /** The research's progress not yet written (the record adds it); absent in answers of earlier versions. */
      progress?: ProgressLine[];
    }
  | { ok: false; error: string };

/**
 * The monthly run budget is spent: the run was recorded `cancelled` with the reason; the watch wakes up next period.
 * The period's first such run announces it (account.budget_exhausted).
 */
export type OverBudget = {
  kind: "over-budget";
  userId: string;
  executionId: string;
  nextRun: string | null;
  notices: Notice[];
  /** The watch's channels (`Recorded.channels`). */
  channels: string[];
};

/**
 * What a recorded run announces (its deliveries), on which of the watch's channels (the types it had when the run was
 * recorded: a notice starts no delivery for a channel the watch lacks), and the watch's next wake-up (null when it is
 * not active).
 */
export type Recorded = { notices: Notice[]; nextRun: string | null; channels: string[] };

/** The watch's channel types, in one order (a step's result is compared on replay). */
const CHANNELS_OF = `array(SELECT c.type::text FROM task_notifications c WHERE c.task_id = t.id ORDER BY c.type)`;

const RECENT_RUNS = 5;
/** Delay before retrying after consecutive failures: 1 min, 5 min, 15 min, 1 h, then every 3 h. */
const FAILURE_BACKOFF_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000, 3 * 60 * 60_000];

type ClaimedTask = {
  user_id: string;
  user_active: boolean;
  name: string;
  search_query: string;
  condition_description: string;
  state: string;
  next_run: Date | null;
  last_known_state: Record<string, unknown> | null;
  min_sources: number;
  min_interval_minutes: number | null;
  max_interval_minutes: number | null;
  notified_finding_key: string | null;
  notified_title: string | null;
  notified_at: Date | null;
};
type TaskRuns = {
  open: { id: string; started_at: string }[];
  recent: { at: string; condition_met: boolean | null; answer: string | null; notified: boolean }[];
};

/**
 * Claims the run: a requested execution goes pending -> running; a scheduled wake-up creates a running
 * execution, but only if it is still the watch's current wake-up (a pause, a re-arm or a manual run
 * supersedes it). The run is counted against the owner's monthly budget in the same transaction; past it, the
 * execution is recorded `cancelled` with the reason and the watch's next wake-up is the next period. Returns null
 * when there is nothing to run.
 */
export async function beginRun(taskId: string, trigger: RunTrigger): Promise<RunPlan | OverBudget | null> {
  const now = Date.now();
  const claimed = await transaction(async (query) => {
    // Lock, then read the executions in a statement of their own: a statement that waited for the lock reads
    // with the snapshot it started with, and would miss the execution of a "Run now" that held the lock. The read
    // needs nothing from the lock's answer, so both are sent at once.
    const locked = query<ClaimedTask>(
      `SELECT t.user_id, u.is_active AS user_active, t.name, t.search_query, t.condition_description, t.state::text AS state,
              t.next_run, t.last_known_state, t.min_sources, t.min_interval_minutes, t.max_interval_minutes, t.notified_finding_key,
              n.notification->>'title' AS notified_title, n.completed_at AS notified_at
         FROM tasks t JOIN users u ON u.id = t.user_id
         LEFT JOIN executions n ON n.id = t.notified_execution_id AND n.retracted_by_execution_id IS NULL
        WHERE t.id = $1 FOR UPDATE OF t`,
      [taskId],
    );
    const runs = query<TaskRuns>(
      `SELECT coalesce((SELECT json_agg(json_build_object('id', e.id, 'started_at', e.started_at))
                          FROM executions e WHERE e.task_id = $1 AND e.status IN ('pending', 'running')), '[]') AS open,
              coalesce((SELECT json_agg(r ORDER BY r.created_at DESC) FROM (
                          SELECT e.created_at, coalesce(e.completed_at, e.created_at) AS at, e.condition_met, e.result->>'answer' AS answer,
                                 e.notification IS NOT NULL AS notified
                            FROM executions e WHERE e.task_id = $1 AND e.status = 'success'
                           ORDER BY e.created_at DESC LIMIT $2) r), '[]') AS recent`,
      [taskId, RECENT_RUNS],
    );
    const [[task], [runsOf]] = await Promise.all([locked, runs]);
    if (!task) return null;
    const { open, recent } = runsOf!;
    const overBudget = async (executionId: string) => {
      const period = periodOf(new Date(now));
      const nextRun = task.state === "active" ? period.end : null;
      const notices: Notice[] = (await firstRefusalThisPeriod(query, task.user_id, new Date(now)))
        ? [
            {
              event: "account.budget_exhausted",
              runs_limit: env.RUNS_PER_USER_PER_MONTH,
              resumes_at: period.end.toISOString(),
            },
          ]
        : [];
      await query(
        `UPDATE executions SET status = 'cancelled', error_message = $2, completed_at = $3, notices = $4 WHERE id = $1`,
        [executionId, budgetExhausted(new Date(now)), new Date(now), JSON.stringify(notices)],
      );
      const [updated] = await query<{ channels: string[] }>(
        `UPDATE tasks t SET next_run = $2 WHERE id = $1 RETURNING ${CHANNELS_OF} AS channels`,
        [taskId, nextRun],
      );
      const channels = updated!.channels;
      return { overBudget: true as const, userId: task.user_id, executionId, nextRun, notices, channels };
    };
    if ("executionId" in trigger) {
      const started = await query(
        `UPDATE executions SET status = 'running', started_at = $3 WHERE id = $1 AND task_id = $2 AND status = 'pending' RETURNING id`,
        [trigger.executionId, taskId, new Date(now)],
      );
      if (!started.length || !task.user_active) return null;
      if (!(await countRun(query, task.user_id, new Date(now)))) return overBudget(trigger.executionId);
      return { task, recent, executionId: trigger.executionId };
    }
    if (task.state !== "active" || task.next_run?.getTime() !== trigger.scheduledFor || !task.user_active) return null;
    const stuck = open.filter((e) => isStuck(new Date(e.started_at), now));
    if (stuck.length < open.length) return null; // a manual run is under way; it re-arms the watch
    await failStuck(
      query,
      stuck.map((e) => e.id),
      new Date(now),
    );
    // The execution, the watch's pointer to it and the run's count against the budget, in one statement.
    const values: unknown[] = [taskId, new Date(now)];
    const [created] = await query<{ id: string; counted: boolean }>(
      `WITH e AS (INSERT INTO executions (id, task_id, status, started_at) VALUES (gen_random_uuid(), $1, 'running', $2) RETURNING id),
            counted AS (${countRunSql((v) => `$${values.push(v)}`, task.user_id, new Date(now))})
       UPDATE tasks SET last_execution_id = (SELECT id FROM e) WHERE id = $1
       RETURNING last_execution_id AS id, EXISTS (SELECT 1 FROM counted) AS counted`,
      values,
    );
    if (!created!.counted) return overBudget(created!.id);
    return { task, recent, executionId: created!.id };
  });
  if (!claimed) return null;
  if ("overBudget" in claimed) {
    const { userId, executionId, nextRun, notices, channels } = claimed;
    return { kind: "over-budget", userId, executionId, nextRun: nextRun?.toISOString() ?? null, notices, channels };
  }
  const { task, recent, executionId } = claimed;
  return {
    kind: "run",
    executionId,
    claimedAt: now,
    userId: task.user_id,
    watch: {
      id: taskId,
      user_id: task.user_id,
      name: task.name,
      search_query: task.search_query,
      condition_description: task.condition_description,
      min_sources: task.min_sources,
      min_interval_minutes: task.min_interval_minutes,
      max_interval_minutes: task.max_interval_minutes,
    },
    lastKnownState: task.last_known_state ?? null,
    notified:
      task.notified_finding_key && task.notified_at
        ? { key: task.notified_finding_key, title: task.notified_title ?? "", at: task.notified_at.toISOString() }
        : null,
    recent: recent.map((r) => ({
      at: new Date(r.at).toISOString(),
      condition_met: r.condition_met === true,
      answer: r.answer ?? "",
      notified: r.notified,
    })),
  };
}

/** Runs the agent. Never throws: a failure is an outcome to record. */
export async function evaluateRun(plan: RunPlan): Promise<Evaluation> {
  const progress = progressWriter(plan.executionId);
  try {
    const run = await withAgentSlot(plan.userId, () =>
      runAgent(
        {
          watch: plan.watch,
          lastKnownState: plan.lastKnownState,
          notified: plan.notified,
          recent: plan.recent,
          now: new Date(),
        },
        { onProgress: progress.add },
      ),
    );
    return {
      ok: true,
      decision: { ...run.decision, next_run: run.decision.next_run.toISOString() },
      model: run.model,
      usage: run.usage,
      duration_ms: run.duration_ms,
      progress: await progress.close(),
    };
  } catch (e) {
    await progress.flush().catch(() => undefined);
    if (!(e instanceof AgentError)) log.error({ err: e }, "agent run failed");
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

async function consecutiveFailures(query: Query, taskId: string) {
  const last = await query<{ status: string }>(
    `SELECT status::text AS status FROM executions WHERE task_id = $1 AND status IN ('success', 'failed') ORDER BY created_at DESC LIMIT $2`,
    [taskId, FAILURE_BACKOFF_MS.length],
  );
  const firstSuccess = last.findIndex((e) => e.status === "success");
  return firstSuccess === -1 ? last.length : firstSuccess;
}

/**
 * A record that finds its execution no longer running: cancelled meanwhile (nothing to do), or recorded by an
 * earlier attempt of this same step whose commit went through while its answer was lost with the connection (the
 * step is retried while the database is unreachable): then the same answer again, from what was stored.
 */
async function alreadyRecorded(
  query: Query,
  executionId: string,
  status: "success" | "failed",
  error: string | null,
): Promise<Recorded> {
  const [row] = await query<{ notices: Notice[] | null; active: boolean; next_run: Date | null; channels: string[] }>(
    `SELECT e.notices, t.state = 'active' AS active, t.next_run, ${CHANNELS_OF} AS channels
       FROM executions e JOIN tasks t ON t.id = e.task_id
      WHERE e.id = $1 AND e.status = $2::"ExecutionStatus" AND e.error_message IS NOT DISTINCT FROM $3`,
    [executionId, status, error],
  );
  if (!row) return { notices: [], nextRun: null, channels: [] };
  return {
    notices: row.notices ?? [],
    nextRun: row.active && row.next_run ? row.next_run.toISOString() : null,
    channels: row.channels,
  };
}

type RecordedTask = {
  state: string;
  user_id: string;
  min_confidence: number;
  min_sources: number;
  notified_finding_key: string | null;
  notified_execution_id: string | null;
  notified_retracted: boolean | null;
  failure_notified: boolean;
  channels: string[];
};

/** A failed run: backoff, and task.run_failed once per streak, from the streak the owner is told about (isFailing). */
async function recordFailure(
  query: TransactionQuery,
  task: RecordedTask,
  taskId: string,
  executionId: string,
  error: string,
  now: Date,
): Promise<Recorded> {
  const failed = await query(
    `UPDATE executions SET status = 'failed', error_message = $2, completed_at = $3 WHERE id = $1 AND status = 'running' RETURNING id`,
    [executionId, error, now],
  );
  if (!failed.length) return alreadyRecorded(query, executionId, "failed", error);
  const failures = await consecutiveFailures(query, taskId);
  const notices: Notice[] =
    isFailing(failures) && !task.failure_notified ? [{ event: "task.run_failed", consecutive_failures: failures }] : [];
  const delay = FAILURE_BACKOFF_MS[Math.min(failures, FAILURE_BACKOFF_MS.length) - 1] ?? FAILURE_BACKOFF_MS[0]!;
  const nextRun = task.state === "active" ? new Date(now.getTime() + delay) : null;
  // Both at once, the second with the COMMIT.
  await Promise.all([
    query(`UPDATE executions SET notices = $2 WHERE id = $1`, [executionId, JSON.stringify(notices)]),
    query.last(
      `UPDATE tasks SET next_run = coalesce($2, next_run), failure_notified = failure_notified OR $3, failure_streak = $4,
              failing_since = CASE WHEN $4 = 1 OR failing_since IS NULL THEN $5 ELSE failing_since END
        WHERE id = $1`,
      [taskId, nextRun, notices.length > 0, failures, now],
    ),
  ]);
  return { notices, nextRun: nextRun?.toISOString() ?? null, channels: task.channels };
}

/**
 * Persists the outcome on the execution and the watch (last_known_state, next_run, completion) and decides what the
 * run announces, under the watch's lock: a retraction of the last notified finding (at most one per finding), a new
 * finding that clears the watch's confidence and corroboration bounds (a held one is recorded with its gate and sent
 * when a later run clears it), the recovery after a failure notice. An execution cancelled meanwhile (forced re-run,
 * deleted watch) records nothing.
 */
export async function recordOutcome(taskId: string, executionId: string, evaluation: Evaluation): Promise<Recorded> {
  const now = new Date();
  // Model output and provider errors are arbitrary text: PostgreSQL refuses NUL characters (lib/text.ts).
  const outcome = storable(evaluation);
  return transaction(async (query) => {
    const [task] = await query<RecordedTask>(
      `SELECT t.state::text AS state, t.user_id, t.min_confidence, t.min_sources, t.notified_finding_key, t.notified_execution_id,
              n.retracted_by_execution_id IS NOT NULL AS notified_retracted, t.failure_notified,
              ${CHANNELS_OF} AS channels
         FROM tasks t LEFT JOIN executions n ON n.id = t.notified_execution_id
        WHERE t.id = $1 FOR UPDATE OF t`,
      [taskId],
    );
    if (!task) return { notices: [], nextRun: null, channels: [] };
    if (!outcome.ok) return recordFailure(query, task, taskId, executionId, outcome.error, now);

    const d = outcome.decision;
    const notices: Notice[] = [];
    let notifiedKey = task.notified_finding_key;
    let notifiedExecution = task.notified_execution_id;
    const retracts =
      d.retracts_previous && task.notified_execution_id && task.notified_retracted === false
        ? task.notified_execution_id
        : null;
    if (retracts) {
      notices.push({ event: "task.condition_retracted", retracted_execution_id: retracts });
      if (notifiedKey) await retractFinding(query, taskId, notifiedKey, now);
      notifiedKey = null; // the same finding, confirmed again later, is news again
    }
    const isNew = d.finding !== null && d.finding.notify && d.finding.key !== notifiedKey;
    const gated = isNew ? gate(d, task) : null;
    const held = gated && !gated.passed ? (gated.reason ?? "") : null;
    const notification = gated?.passed ? d.finding!.notification : null;
    if (notification) {
      notices.unshift({ event: "task.condition_met" });
      notifiedKey = d.finding!.key;
      notifiedExecution = executionId;
    }
    if (task.failure_notified) notices.push({ event: "task.run_recovered" });

    const result = runResult(d, outcome, gated, retracts);
    // JSON values go in as strings: node-postgres would turn an array into a PostgreSQL array.
    const recorded = await query(
      `UPDATE executions SET status = 'success', completed_at = $2, condition_met = $3, result = $4, notification = $5, grounding_sources = $6,
              notices = $7, progress = coalesce(progress, '[]'::jsonb) || $8::jsonb
        WHERE id = $1 AND status = 'running' RETURNING id`,
      [
        executionId,
        now,
        d.condition_met,
        JSON.stringify(result),
        notification && JSON.stringify(notification),
        JSON.stringify(d.sources),
        JSON.stringify(notices),
        JSON.stringify([
          ...(outcome.progress ?? []),
          ...decisionProgress(now, {
            condition_met: d.condition_met,
            confidence: d.confidence,
            findingTitle: d.finding?.notification.title ?? null,
            isNew,
            held,
            notified: notification !== null,
            retracted: retracts !== null,
            channels: task.channels,
          }),
        ]),
      ],
    );
    if (!recorded.length) return alreadyRecorded(query, executionId, "success", null);
    const found = d.finding
      ? await recordFinding(query, taskId, executionId, now, {
          key: d.finding.key,
          title: d.finding.notification.title,
          answer: d.answer,
          sources: d.sources,
          notified: notification !== null,
          held,
        })
      : null;
    if (retracts)
      await query(`UPDATE executions SET retracted_by_execution_id = $2 WHERE id = $1`, [retracts, executionId]);
    const active = task.state === "active";
    const completes = active && d.done;
    const nextRun = active && !d.done ? new Date(d.next_run) : null;
    // What cards and the verdict read: the latest answer (the public one unless held back), what is held, and when the
    // owner last had news (a finding sent or held for the first time, or a retraction).
    const answer = firstSentence(d.answer);
    const news = notification !== null || retracts !== null || found?.created === true;
    // The watch's update and the run's tokens added to the owner's period, in one statement.
    const values: unknown[] = [
      taskId,
      JSON.stringify(d.last_known_state),
      active,
      nextRun,
      completes,
      now,
      notifiedKey,
      notifiedExecution,
      answer,
      held,
      // A met answer that confirms what was held keeps it held; nothing found, a finding sent or a retraction ends it.
      d.condition_met && notification === null && retracts === null,
      news,
    ];
    // Sent with the COMMIT: nothing follows it.
    await query.last(
      `WITH tokens AS (${addTokensSql((v) => `$${values.push(v)}`, task.user_id, now, outcome.usage)})
       UPDATE tasks SET last_known_state = $2,
              next_run = CASE WHEN $3::boolean THEN $4::timestamptz ELSE next_run END,
              state = CASE WHEN $5::boolean THEN 'completed' ELSE state END,
              state_changed_at = CASE WHEN $5::boolean THEN $6 ELSE state_changed_at END,
              notified_finding_key = $7, notified_execution_id = $8, failure_notified = false,
              failure_streak = 0, failing_since = NULL, latest_answer = $9, latest_answer_at = $6,
              public_answer = CASE WHEN $10::text IS NULL THEN $9 ELSE public_answer END,
              public_answer_at = CASE WHEN $10::text IS NULL THEN $6 ELSE public_answer_at END,
              held_reason = CASE WHEN $10::text IS NOT NULL THEN $10 WHEN $11::boolean THEN held_reason END,
              finding_at = CASE WHEN $12::boolean THEN $6 ELSE finding_at END
        WHERE id = $1`,
      values,
    );
    return { notices, nextRun: nextRun?.toISOString() ?? null, channels: task.channels };
  });
}
