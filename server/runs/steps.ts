/**
 * The steps of one watch run, shared by both orchestration drivers (the embedded DBOS engine and Inngest).
 * Each is one durable side effect: begin (claim an execution), evaluate (the agent), record (persist the
 * outcome and the next wake-up), then delivery (server/notify). Their results are plain JSON so either
 * engine can checkpoint them.
 */
import { AgentError, runAgent, withAgentSlot, type AgentWatch, type PriorRun } from "../agent";
import { env } from "../env";
import { db, Prisma } from "../db";

export type RunTrigger = { executionId: string } | { scheduledFor: number };

export type RunPlan = {
  executionId: string;
  userId: string;
  watch: AgentWatch;
  lastKnownState: Record<string, unknown> | null;
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
        notification: { title: string; markdown: string } | null;
        next_run: string;
        next_run_reason: string;
        done: boolean;
        last_known_state: Record<string, unknown>;
      };
      model: string;
      usage: { input_tokens: number; output_tokens: number };
      duration_ms: number;
    }
  | { ok: false; error: string };

export type Recorded = { notify: boolean; nextRun: string | null };

const RECENT_RUNS = 5;
/** Delay before retrying after consecutive failures: 1 min, 5 min, 15 min, 1 h, then every 3 h. */
const FAILURE_BACKOFF_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000, 3 * 60 * 60_000];

const isStuck = (startedAt: Date, now: number) => now - startedAt.getTime() > env.EXECUTION_STUCK_AFTER_MS;

/**
 * Claims the run: a requested execution goes pending -> running; a scheduled wake-up creates a running
 * execution, but only if it is still the watch's current wake-up (a pause, a re-arm or a manual run
 * supersedes it). Returns null when there is nothing to run.
 */
export async function beginRun(taskId: string, trigger: RunTrigger): Promise<RunPlan | null> {
  const now = Date.now();
  const claimed = await db.$transaction(async (tx) => {
    const [task] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tasks WHERE id = ${taskId}::uuid FOR UPDATE`;
    if (!task) return null;
    const row = await tx.task.findUniqueOrThrow({ where: { id: taskId } });
    let executionId: string;
    if ("executionId" in trigger) {
      const { count } = await tx.execution.updateMany({
        where: { id: trigger.executionId, task_id: taskId, status: "pending" },
        data: { status: "running", started_at: new Date(now) },
      });
      if (!count) return null;
      executionId = trigger.executionId;
    } else {
      if (row.state !== "active" || row.next_run?.getTime() !== trigger.scheduledFor) return null;
      const open = await tx.execution.findMany({ where: { task_id: taskId, status: { in: ["pending", "running"] } } });
      if (open.some((e) => !isStuck(e.started_at, now))) return null; // a manual run is under way; it re-arms the watch
      if (open.length)
        await tx.execution.updateMany({
          where: { id: { in: open.map((e) => e.id) } },
          data: { status: "failed", error_message: "superseded: stuck", completed_at: new Date(now) },
        });
      executionId = (await tx.execution.create({ data: { task_id: taskId, status: "running", started_at: new Date(now) } })).id;
      await tx.task.update({ where: { id: taskId }, data: { last_execution_id: executionId } });
    }
    return { row, executionId };
  });
  if (!claimed) return null;
  const { row, executionId } = claimed;
  const recent = await db.execution.findMany({
    where: { task_id: taskId, status: "success" },
    orderBy: { created_at: "desc" },
    take: RECENT_RUNS,
  });
  return {
    executionId,
    userId: row.user_id,
    watch: {
      id: row.id,
      user_id: row.user_id,
      name: row.name,
      search_query: row.search_query,
      condition_description: row.condition_description,
    },
    lastKnownState: (row.last_known_state as Record<string, unknown> | null) ?? null,
    recent: recent.map((e) => {
      const result = (e.result ?? {}) as { answer?: string };
      return {
        at: (e.completed_at ?? e.created_at).toISOString(),
        condition_met: e.condition_met === true,
        answer: result.answer ?? "",
        notified: e.notification !== null,
      };
    }),
  };
}

/** Runs the agent. Never throws: a failure is an outcome to record. */
export async function evaluateRun(plan: RunPlan): Promise<Evaluation> {
  try {
    const run = await withAgentSlot(plan.userId, () =>
      runAgent({ watch: plan.watch, lastKnownState: plan.lastKnownState, recent: plan.recent, now: new Date() }),
    );
    const d = run.decision;
    return {
      ok: true,
      decision: {
        condition_met: d.condition_met,
        answer: d.answer,
        evidence: d.evidence,
        confidence: d.confidence,
        sources: d.sources,
        notification: d.notify ? d.notification : null,
        next_run: d.next_run.toISOString(),
        next_run_reason: d.next_run_reason,
        done: d.done,
        last_known_state: d.last_known_state,
      },
      model: run.model,
      usage: run.usage,
      duration_ms: run.duration_ms,
    };
  } catch (e) {
    if (!(e instanceof AgentError)) console.error(`watch ${plan.watch.id}: agent run failed`, e);
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

async function consecutiveFailures(tx: Prisma.TransactionClient, taskId: string) {
  const last = await tx.execution.findMany({
    where: { task_id: taskId, status: { in: ["success", "failed"] } },
    orderBy: { created_at: "desc" },
    take: FAILURE_BACKOFF_MS.length,
    select: { status: true },
  });
  const firstSuccess = last.findIndex((e) => e.status === "success");
  return firstSuccess === -1 ? last.length : firstSuccess;
}

/**
 * Persists the outcome on the execution and the watch (last_known_state, next_run, completion). An execution
 * cancelled meanwhile (forced re-run, deleted watch) records nothing. Returns whether to notify and the
 * watch's next wake-up (null when it is not active).
 */
export async function recordOutcome(taskId: string, executionId: string, outcome: Evaluation): Promise<Recorded> {
  const now = new Date();
  return db.$transaction(async (tx) => {
    const [task] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tasks WHERE id = ${taskId}::uuid FOR UPDATE`;
    if (!task) return { notify: false, nextRun: null };
    const current = await tx.task.findUniqueOrThrow({ where: { id: taskId }, select: { state: true } });
    const active = current.state === "active";

    if (!outcome.ok) {
      const { count } = await tx.execution.updateMany({
        where: { id: executionId, status: "running" },
        data: { status: "failed", error_message: outcome.error, completed_at: now },
      });
      if (!count || !active) return { notify: false, nextRun: null };
      const failures = await consecutiveFailures(tx, taskId);
      const delay = FAILURE_BACKOFF_MS[Math.min(failures, FAILURE_BACKOFF_MS.length) - 1] ?? FAILURE_BACKOFF_MS[0]!;
      const nextRun = new Date(now.getTime() + delay);
      await tx.task.update({ where: { id: taskId }, data: { next_run: nextRun } });
      return { notify: false, nextRun: nextRun.toISOString() };
    }

    const d = outcome.decision;
    const { count } = await tx.execution.updateMany({
      where: { id: executionId, status: "running" },
      data: {
        status: "success",
        completed_at: now,
        condition_met: d.condition_met,
        result: {
          condition_met: d.condition_met,
          answer: d.answer,
          evidence: d.evidence,
          confidence: d.confidence,
          model: outcome.model,
          usage: outcome.usage,
          duration_ms: outcome.duration_ms,
          next_run_reason: d.next_run_reason,
        },
        notification: d.notification ?? Prisma.DbNull,
        grounding_sources: d.sources,
      },
    });
    if (!count) return { notify: false, nextRun: null };
    const completes = active && d.done;
    const nextRun = active && !d.done ? new Date(d.next_run) : null;
    await tx.task.update({
      where: { id: taskId },
      data: {
        last_known_state: d.last_known_state as Prisma.InputJsonObject,
        ...(active ? { next_run: nextRun } : {}),
        ...(completes ? { state: "completed", state_changed_at: now } : {}),
      },
    });
    return { notify: d.notification !== null, nextRun: nextRun?.toISOString() ?? null };
  });
}
