/**
 * Starting a run against executions already open: a scheduled run's claim (server/runs/steps.ts) and "Run now"
 * (server/tasks/executions.ts). A live run blocks both; a stuck one is failed and superseded. The claim racing a
 * Run now waits for the watch's lock and must then see the execution the other transaction created, instead of
 * starting a second run. Recording an outcome twice (a retried step) answers the same. On PostgreSQL in the Postgres
 * tier (DATABASE_URL), on the embedded database otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, type Database } from "@/server/db";
import { beginRun, recordOutcome, type RunPlan } from "@/server/runs/steps";
import { setScheduler, type Scheduler } from "@/server/scheduler";
import { ALREADY_RUNNING, startExecution } from "@/server/tasks/executions";
import { openTestDatabase } from "../helpers/database";

let database: Database;
const handedOver: string[] = [];
const recording: Scheduler = {
  name: "recording",
  arm: async () => {},
  disarm: async () => {},
  runNow: async (_taskId, executionId) => void handedOver.push(`run ${executionId}`),
  cancelRun: async (executionId) => void handedOver.push(`cancel ${executionId}`),
  health: async () => "ok",
};

async function activeWatch(nextRun: Date) {
  const user = await db.user.create({ data: { clerk_user_id: `user_${Math.random().toString(36).slice(2)}`, email: "c@example.com" } });
  return db.task.create({
    data: { user_id: user.id, name: "n", search_query: "q", condition_description: "c", state: "active", next_run: nextRun },
  });
}
const HOUR = 3_600_000;

beforeAll(async () => {
  database = await openTestDatabase();
  setScheduler(recording);
}, 60_000);

afterAll(async () => {
  setScheduler(undefined);
  await database?.close();
});

describe("claiming a scheduled run", () => {
  it("waits for a concurrent Run now and then leaves the run to it", async () => {
    const at = new Date();
    const task = await activeWatch(at);

    // What startExecution does, held open: lock the watch, add a pending execution, link it.
    const runNow = await database.pool.connect();
    await runNow.query("BEGIN");
    await runNow.query("SELECT id FROM tasks WHERE id = $1 FOR UPDATE", [task.id]);
    const { rows } = await runNow.query("INSERT INTO executions (id, task_id, status) VALUES (gen_random_uuid(), $1, 'pending') RETURNING id", [task.id]);
    await runNow.query("UPDATE tasks SET last_execution_id = $2 WHERE id = $1", [task.id, rows[0].id]);

    const claim = beginRun(task.id, { scheduledFor: at.getTime() });
    await new Promise((r) => setTimeout(r, 300)); // the claim is now waiting for the lock
    await runNow.query("COMMIT");
    runNow.release();

    expect(await claim).toBeNull();
    const open = await db.execution.findMany({ where: { task_id: task.id, status: { in: ["pending", "running"] } } });
    expect(open.map((e) => e.id)).toEqual([rows[0].id]);
  });

  it("is left to a live run, and fails a stuck one as superseded", async () => {
    const at = new Date();
    const live = await activeWatch(at);
    await db.execution.create({ data: { task_id: live.id, status: "running", started_at: new Date(Date.now() - 60_000) } });
    expect(await beginRun(live.id, { scheduledFor: at.getTime() })).toBeNull();

    const stuck = await activeWatch(at);
    const old = await db.execution.create({ data: { task_id: stuck.id, status: "running", started_at: new Date(Date.now() - 2 * HOUR) } });
    const plan = (await beginRun(stuck.id, { scheduledFor: at.getTime() })) as RunPlan;
    expect(plan).not.toBeNull();
    expect(await db.execution.findUnique({ where: { id: old.id } })).toMatchObject({ status: "failed", error_message: "superseded: stuck" });
    expect((await db.task.findUnique({ where: { id: stuck.id } }))!.last_execution_id).toBe(plan!.executionId);
  });
});

describe("Run now", () => {
  it("answers 409 while a run is live, fails a stuck one as superseded, cancels a live one when forced", async () => {
    const task = await activeWatch(new Date(Date.now() + HOUR));
    const live = await db.execution.create({ data: { task_id: task.id, status: "running", started_at: new Date(Date.now() - 60_000) } });
    await expect(startExecution(task.id)).rejects.toMatchObject({ message: ALREADY_RUNNING });

    await db.execution.update({ where: { id: live.id }, data: { started_at: new Date(Date.now() - 2 * HOUR) } });
    const next = await startExecution(task.id);
    expect(await db.execution.findUnique({ where: { id: live.id } })).toMatchObject({ status: "failed", error_message: "superseded: stuck" });
    expect(next.status).toBe("pending");

    const forced = await startExecution(task.id, true);
    expect(await db.execution.findUnique({ where: { id: next.id } })).toMatchObject({ status: "cancelled" });
    expect(handedOver).toEqual(expect.arrayContaining([`cancel ${live.id}`, `run ${next.id}`, `cancel ${next.id}`, `run ${forced.id}`]));
  });
});

describe("recording a run's outcome", () => {
  const decision = (over: Record<string, unknown> = {}) => ({
    ok: true as const,
    decision: {
      condition_met: true, answer: "a", evidence: "e", confidence: 0.9, sources: [], notification: { title: "t", markdown: "m" },
      next_run: new Date(Date.now() + HOUR).toISOString(), next_run_reason: "r", done: false, last_known_state: {}, ...over,
    },
    model: "m", usage: { input_tokens: 1, output_tokens: 1 }, duration_ms: 1,
  });

  it("answers a repeated record (a retry after a lost commit) as the first one, and a cancelled run with nothing", async () => {
    const at = new Date();
    const task = await activeWatch(at);
    const plan = (await beginRun(task.id, { scheduledFor: at.getTime() })) as RunPlan;
    const outcome = decision();
    const first = await recordOutcome(task.id, plan.executionId, outcome);
    expect(first).toEqual({ notify: true, nextRun: outcome.decision.next_run });
    expect(await recordOutcome(task.id, plan.executionId, outcome)).toEqual(first);

    const failing = await activeWatch(at);
    const failed = (await beginRun(failing.id, { scheduledFor: at.getTime() })) as RunPlan;
    const retry = await recordOutcome(failing.id, failed.executionId, { ok: false, error: "Model provider error" });
    expect(retry.nextRun).not.toBeNull();
    expect(await recordOutcome(failing.id, failed.executionId, { ok: false, error: "Model provider error" })).toEqual(retry);

    const superseded = await startExecution(task.id);
    await startExecution(task.id, true);
    expect(await recordOutcome(task.id, superseded.id, decision())).toEqual({ notify: false, nextRun: null });
  });
});
