/** Executions: starting a run by hand ("Run now"), the conflict rule, and the history reads. */
import { DomainError, notFound } from "../errors";
import { env } from "../env";
import { db, type ExecutionStatus, type User } from "../db";
import { prismaQuery, type Query } from "../db/sql";
import { scheduler } from "../scheduler";
import { assertRunBudget } from "../usage";
import { executionView } from "./views";

export const ALREADY_RUNNING = "Task is already running or pending. Use force=true to override.";
const OPEN: ExecutionStatus[] = ["pending", "running"];

/** An open execution older than EXECUTION_STUCK_AFTER is stuck: a new run (by hand or scheduled) fails it with this. */
export const isStuck = (startedAt: Date, now: number) => now - startedAt.getTime() > env.EXECUTION_STUCK_AFTER_MS;
export const STUCK_ERROR = "superseded: stuck";

/** Fails stuck open executions as superseded: the one statement of both the scheduled claim and Run now. */
export async function failStuck(query: Query, ids: string[], now: Date) {
  if (ids.length)
    await query(
      `UPDATE executions SET status = 'failed', error_message = $2, completed_at = $3 WHERE id = ANY($1::uuid[])`,
      [ids, STUCK_ERROR, now],
    );
}

/**
 * Creates a pending execution and hands it to the scheduler. An open execution blocks (409) unless it is
 * stuck (older than EXECUTION_STUCK_AFTER: failed as superseded) or `force` is given (cancelled).
 */
export async function startExecution(taskId: string, force = false) {
  const now = Date.now();
  const { execution, superseded, watch } = await db.$transaction(async (tx) => {
    // Lock the watch row so two concurrent "run now" calls cannot both pass the open-execution check.
    const [watch] = await prismaQuery(tx)<{ id: string; user_id: string }>(
      `SELECT id, user_id FROM tasks WHERE id = $1::uuid FOR UPDATE`,
      [taskId],
    );
    if (!watch) throw notFound();
    const open = await tx.execution.findMany({
      where: { task_id: taskId, status: { in: OPEN } },
      select: { id: true, started_at: true },
    });
    const stuck = open.filter((e) => isStuck(e.started_at, now));
    const live = open.filter((e) => !stuck.includes(e));
    if (live.length && !force) throw new DomainError("conflict", ALREADY_RUNNING);
    await failStuck(
      prismaQuery(tx),
      stuck.map((e) => e.id),
      new Date(now),
    );
    if (live.length)
      await tx.execution.updateMany({
        where: { id: { in: live.map((e) => e.id) } },
        data: {
          status: "cancelled",
          error_message: "cancelled: superseded by a forced run",
          completed_at: new Date(now),
        },
      });
    const created = await tx.execution.create({ data: { task_id: taskId, status: "pending" } });
    await tx.task.update({ where: { id: taskId }, data: { last_execution_id: created.id } });
    return { execution: created, superseded: open.map((e) => e.id), watch };
  });
  for (const id of superseded) await scheduler().cancelRun(id);
  await scheduler().runNow(watch, execution.id);
  return execution;
}

async function assertOwner(user: User, taskId: string) {
  const task = await db.task.findFirst({ where: { id: taskId, user_id: user.id }, select: { id: true } });
  if (!task) throw notFound();
}

export async function executeTask(user: User, taskId: string, force: boolean) {
  await assertOwner(user, taskId);
  await assertRunBudget(user.id);
  return executionView(await startExecution(taskId, force));
}

/** Newest first; runs of the same instant in one order on every page. */
const NEWEST = [{ created_at: "desc" as const }, { id: "desc" as const }];

export async function listExecutions(
  user: User,
  taskId: string,
  q: { limit: number; offset: number; status?: ExecutionStatus },
) {
  await assertOwner(user, taskId);
  const rows = await db.execution.findMany({
    where: { task_id: taskId, ...(q.status ? { status: q.status } : {}) },
    orderBy: NEWEST,
    take: q.limit,
    skip: q.offset,
  });
  return rows.map(executionView);
}

/** Executions whose condition was met, one per run (the findings grouped: ./findings). */
export async function listMetExecutions(user: User, taskId: string, q: { limit: number; offset: number }) {
  await assertOwner(user, taskId);
  const rows = await db.execution.findMany({
    where: { task_id: taskId, condition_met: true },
    orderBy: NEWEST,
    take: q.limit,
    skip: q.offset,
  });
  return rows.map(executionView);
}
