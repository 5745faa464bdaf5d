/**
 * Each account's usage per calendar month (UTC): runs against RUNS_PER_USER_PER_MONTH, and model tokens. A run is
 * counted when it is claimed, in the claim's own transaction, so a budget holds under concurrent runs and replicas.
 */
import { DomainError } from "./errors";
import { env } from "./env";
import { lockAccount, sql, type Query } from "./db/sql";

/** The calendar month (UTC) that `at` falls in: [start, end). */
export function periodOf(at: Date) {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end };
}

const isoDate = (d: Date) => d.toISOString().slice(0, 10);

export const budgetExhausted = (at: Date) =>
  `Monthly run budget of ${env.RUNS_PER_USER_PER_MONTH} reached; runs resume on ${isoDate(periodOf(at).end)}`;

/** A statement's parameter: takes a value, answers its placeholder (`$n`). */
type Param = (value: unknown) => string;

const placeholders = () => {
  const values: unknown[] = [];
  return { values, param: (v: unknown) => `$${values.push(v)}` };
};

/**
 * Counts one run for the user's current period, as a statement of its own or a data-modifying CTE of a larger one
 * (the claim's): it returns a row when counted, none when the budget is spent.
 */
export const countRunSql = (param: Param, userId: string, at: Date) =>
  `INSERT INTO usage_periods (user_id, period_start, runs) VALUES (${param(userId)}, ${param(isoDate(periodOf(at).start))}::date, 1)
     ON CONFLICT (user_id, period_start) DO UPDATE SET runs = usage_periods.runs + 1 WHERE usage_periods.runs < ${param(env.RUNS_PER_USER_PER_MONTH)}
     RETURNING runs`;

/** Counts one run for the user's current period; false (nothing counted) when the budget is spent. */
export async function countRun(query: Query, userId: string, at: Date): Promise<boolean> {
  const { values, param } = placeholders();
  return (await query(countRunSql(param, userId, at), values)).length > 0;
}

/** True once per user and period: the caller announces that the budget is spent. */
export async function firstRefusalThisPeriod(query: Query, userId: string, at: Date) {
  const marked = await query(
    `UPDATE usage_periods SET budget_notified = true WHERE user_id = $1 AND period_start = $2::date AND NOT budget_notified RETURNING user_id`,
    [userId, isoDate(periodOf(at).start)],
  );
  return marked.length > 0;
}

/** Adds a run's model tokens to the user's current period, as a statement or a data-modifying CTE (the record's). */
export const addTokensSql = (
  param: Param,
  userId: string,
  at: Date,
  usage: { input_tokens: number; output_tokens: number },
) => {
  const [input, output] = [param(usage.input_tokens), param(usage.output_tokens)];
  return `INSERT INTO usage_periods (user_id, period_start, input_tokens, output_tokens)
     VALUES (${param(userId)}, ${param(isoDate(periodOf(at).start))}::date, ${input}, ${output})
     ON CONFLICT (user_id, period_start) DO UPDATE
       SET input_tokens = usage_periods.input_tokens + ${input}, output_tokens = usage_periods.output_tokens + ${output}`;
};

export async function addTokens(
  query: Query,
  userId: string,
  at: Date,
  usage: { input_tokens: number; output_tokens: number },
) {
  const { values, param } = placeholders();
  await query(addTokensSql(param, userId, at, usage), values);
}

/** The account's active watches (`$1`: its id), counted: at most the active cap, through the (user, state) index. */
export const COUNT_ACTIVE = `SELECT count(*)::int AS n FROM tasks WHERE user_id = $1::uuid AND state = 'active'`;

/** The caller's usage this period against their limits (GET /api/v1/usage). */
export async function usageOf(userId: string, at = new Date()) {
  const { start, end } = periodOf(at);
  const [[period], [active]] = await Promise.all([
    sql<{ runs: number; input_tokens: number; output_tokens: number }>(
      `SELECT runs, input_tokens, output_tokens FROM usage_periods WHERE user_id = $1 AND period_start = $2::date`,
      [userId, isoDate(start)],
    ),
    sql<{ n: number }>(COUNT_ACTIVE, [userId]),
  ]);
  return {
    period_start: start.toISOString(),
    period_end: end.toISOString(),
    runs: period?.runs ?? 0,
    runs_limit: env.RUNS_PER_USER_PER_MONTH,
    input_tokens: period?.input_tokens ?? 0,
    output_tokens: period?.output_tokens ?? 0,
    active_tasks: active!.n,
    active_tasks_limit: env.MAX_ACTIVE_TASKS_PER_USER,
  };
}

/** The caller's watches that ran most this period, with their runs and tokens (the Settings page's usage panel). */
export async function usageByTask(userId: string, limit: number, at = new Date()) {
  return sql<{ task_id: string; name: string; runs: number; input_tokens: number; output_tokens: number }>(
    `SELECT t.id AS task_id, t.name, count(*)::int AS runs,
            coalesce(sum((e.result->'usage'->>'input_tokens')::int), 0)::int AS input_tokens,
            coalesce(sum((e.result->'usage'->>'output_tokens')::int), 0)::int AS output_tokens
       FROM executions e JOIN tasks t ON t.id = e.task_id
      WHERE t.user_id = $1 AND e.started_at >= $2 AND e.status IN ('running', 'success', 'failed')
      GROUP BY t.id, t.name ORDER BY runs DESC, t.name LIMIT $3`,
    [userId, periodOf(at).start, limit],
  );
}

/** 403 with the budget text when the user has no run left this period (Run now; a preview). */
export async function assertRunBudget(userId: string, at = new Date()) {
  const [row] = await sql<{ runs: number }>(
    `SELECT runs FROM usage_periods WHERE user_id = $1 AND period_start = $2::date`,
    [userId, isoDate(periodOf(at).start)],
  );
  if ((row?.runs ?? 0) >= env.RUNS_PER_USER_PER_MONTH) throw new DomainError("forbidden", budgetExhausted(at));
}

export const activeTaskLimitReached = () =>
  `Active task limit reached (${env.MAX_ACTIVE_TASKS_PER_USER}). Pause or complete a task first.`;

/**
 * 403 when one more active watch would pass MAX_ACTIVE_TASKS_PER_USER. Call inside the transaction that activates the
 * watch: it locks the user's row, so concurrent creates and resumes are counted one after the other.
 */
export async function assertActiveAllowance(query: Query, userId: string) {
  await lockAccount(query, userId);
  const [row] = await query<{ n: number }>(COUNT_ACTIVE, [userId]);
  if (row!.n >= env.MAX_ACTIVE_TASKS_PER_USER) throw new DomainError("forbidden", activeTaskLimitReached());
}
