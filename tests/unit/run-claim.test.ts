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
  armDigest: async () => {},
  disarmDigest: async () => {},
  armRetention: async () => {},
  sendFinding: async () => {},
};

async function activeWatch(nextRun: Date) {
  const user = await db.user.create({
    data: { clerk_user_id: `user_${Math.random().toString(36).slice(2)}`, email: "c@example.com" },
  });
  return db.task.create({
    data: {
      user_id: user.id,
      name: "n",
      search_query: "q",
      condition_description: "c",
      state: "active",
      next_run: nextRun,
    },
  });
}
const HOUR = 3_600_000;

beforeAll(async () => {
  database = await openTestDatabase();
  setScheduler(recording);
});

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
    const { rows } = await runNow.query(
      "INSERT INTO executions (id, task_id, status) VALUES (gen_random_uuid(), $1, 'pending') RETURNING id",
      [task.id],
    );
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
    await db.execution.create({
      data: { task_id: live.id, status: "running", started_at: new Date(Date.now() - 60_000) },
    });
    expect(await beginRun(live.id, { scheduledFor: at.getTime() })).toBeNull();

    const stuck = await activeWatch(at);
    const old = await db.execution.create({
      data: { task_id: stuck.id, status: "running", started_at: new Date(Date.now() - 2 * HOUR) },
    });
    const plan = (await beginRun(stuck.id, { scheduledFor: at.getTime() })) as RunPlan;
    expect(plan).not.toBeNull();
    expect(await db.execution.findUnique({ where: { id: old.id } })).toMatchObject({
      status: "failed",
      error_message: "superseded: stuck",
    });
    expect((await db.task.findUnique({ where: { id: stuck.id } }))!.last_execution_id).toBe(plan!.executionId);
  });
});

describe("Run now", () => {
  it("answers 409 while a run is live, fails a stuck one as superseded, cancels a live one when forced", async () => {
    const task = await activeWatch(new Date(Date.now() + HOUR));
    const live = await db.execution.create({
      data: { task_id: task.id, status: "running", started_at: new Date(Date.now() - 60_000) },
    });
    await expect(startExecution(task.id)).rejects.toMatchObject({ message: ALREADY_RUNNING });

    await db.execution.update({ where: { id: live.id }, data: { started_at: new Date(Date.now() - 2 * HOUR) } });
    const next = await startExecution(task.id);
    expect(await db.execution.findUnique({ where: { id: live.id } })).toMatchObject({
      status: "failed",
      error_message: "superseded: stuck",
    });
    expect(next.status).toBe("pending");

    const forced = await startExecution(task.id, true);
    expect(await db.execution.findUnique({ where: { id: next.id } })).toMatchObject({ status: "cancelled" });
    expect(handedOver).toEqual(
      expect.arrayContaining([`cancel ${live.id}`, `run ${next.id}`, `cancel ${next.id}`, `run ${forced.id}`]),
    );
  });
});

describe("recording a run's outcome", () => {
  const decision = (over: Record<string, unknown> = {}) => ({
    ok: true as const,
    decision: {
      condition_met: true,
      answer: "a",
      evidence: "e",
      confidence: 0.9,
      sources: [{ url: "https://www.example.com/news", title: "news" }],
      finding: { key: "k1", notify: true, notification: { title: "t", markdown: "m" } },
      retracts_previous: false,
      next_run: new Date(Date.now() + HOUR).toISOString(),
      next_run_reason: "r",
      done: false,
      last_known_state: {},
      ...over,
    },
    model: "m",
    usage: { input_tokens: 1, output_tokens: 1 },
    duration_ms: 1,
  });
  const failure = { ok: false as const, error: "Model provider error" };
  /** One scheduled run of the watch, recorded with `outcome`. */
  async function run(taskId: string, outcome: ReturnType<typeof decision> | typeof failure) {
    const task = (await db.task.findUniqueOrThrow({ where: { id: taskId } }))!;
    const plan = (await beginRun(taskId, { scheduledFor: task.next_run!.getTime() })) as RunPlan;
    const recorded = await recordOutcome(taskId, plan.executionId, outcome);
    const execution = await db.execution.findUniqueOrThrow({ where: { id: plan.executionId } });
    return { recorded, execution, events: recorded.notices.map((n) => n.event) };
  }

  it("answers a repeated record (a retry after a lost commit) as the first one, and a cancelled run with nothing", async () => {
    const at = new Date();
    const task = await activeWatch(at);
    for (const type of ["slack", "email"] as const)
      await db.taskNotification.create({ data: { task_id: task.id, type, config: {} } });
    const plan = (await beginRun(task.id, { scheduledFor: at.getTime() })) as RunPlan;
    const outcome = decision();
    const first = await recordOutcome(task.id, plan.executionId, outcome);
    // The watch's channels go with the notices: the run starts a delivery on those only.
    expect(first).toEqual({
      notices: [{ event: "task.condition_met" }],
      nextRun: outcome.decision.next_run,
      channels: ["email", "slack"],
    });
    expect(await recordOutcome(task.id, plan.executionId, outcome)).toEqual(first);

    const failing = await activeWatch(at);
    const failed = (await beginRun(failing.id, { scheduledFor: at.getTime() })) as RunPlan;
    const retry = await recordOutcome(failing.id, failed.executionId, failure);
    expect(retry.nextRun).not.toBeNull();
    expect(await recordOutcome(failing.id, failed.executionId, failure)).toEqual(retry);

    const superseded = await startExecution(task.id);
    await startExecution(task.id, true);
    expect(await recordOutcome(task.id, superseded.id, decision())).toEqual({
      notices: [],
      nextRun: null,
      channels: [],
    });
  });

  it("never tells the same finding twice; a new key is news", async () => {
    const task = await activeWatch(new Date());
    expect((await run(task.id, decision())).events).toEqual(["task.condition_met"]);
    const again = await run(task.id, decision());
    expect(again.events).toEqual([]);
    expect(again.execution.notification).toBeNull();
    expect((again.execution.result as { gate: unknown }).gate).toBeNull();
    expect(
      (
        await run(
          task.id,
          decision({ finding: { key: "k2", notify: true, notification: { title: "t2", markdown: "m" } } }),
        )
      ).events,
    ).toEqual(["task.condition_met"]);
  });

  it("holds a finding below the watch's bounds, visibly, and sends it once when a later run clears them", async () => {
    const task = await activeWatch(new Date());
    await db.task.update({ where: { id: task.id }, data: { min_confidence: 0.8, min_sources: 2 } });
    const held = await run(task.id, decision({ confidence: 0.7 }));
    expect(held.events).toEqual([]);
    expect(held.execution.notification).toBeNull();
    expect((held.execution.result as { gate: unknown }).gate).toEqual({
      passed: false,
      reason: "confidence 0.7 is below 0.8; 1 independent source, 2 required",
    });
    const twoSites = [
      { url: "https://a.example.co.uk/x", title: "a" },
      { url: "https://www.example.co.uk/y", title: "b" },
      { url: "https://news.other.org/z", title: "c" },
    ];
    const cleared = await run(task.id, decision({ sources: twoSites }));
    expect(cleared.events).toEqual(["task.condition_met"]);
    expect((cleared.execution.result as { gate: unknown }).gate).toEqual({ passed: true, reason: null });
    expect((await run(task.id, decision({ sources: twoSites }))).events).toEqual([]);
  });

  it("retracts the last notified finding once, and only a notified one", async () => {
    const task = await activeWatch(new Date());
    const retraction = decision({ condition_met: false, finding: null, retracts_previous: true });
    expect((await run(task.id, retraction)).events).toEqual([]); // nothing was notified yet
    const found = await run(task.id, decision());
    const withdrawn = await run(task.id, retraction);
    expect(withdrawn.recorded.notices).toEqual([
      { event: "task.condition_retracted", retracted_execution_id: found.execution.id },
    ]);
    expect((withdrawn.execution.result as { retracted_execution_id: string }).retracted_execution_id).toBe(
      found.execution.id,
    );
    expect(
      (await db.execution.findUniqueOrThrow({ where: { id: found.execution.id } })).retracted_by_execution_id,
    ).toBe(withdrawn.execution.id);
    expect((await run(task.id, retraction)).events).toEqual([]); // at most one per notified finding
    // Confirmed again later, the same finding is news again.
    expect((await run(task.id, decision())).events).toEqual(["task.condition_met"]);
  });

  it("sends task.run_failed at the third failure in a row, once per streak, and task.run_recovered after it", async () => {
    const task = await activeWatch(new Date());
    const events = [];
    for (const outcome of [
      failure,
      failure,
      failure,
      failure,
      decision({ finding: null }),
      failure,
      decision({ finding: null }),
    ])
      events.push((await run(task.id, outcome)).events);
    expect(events).toEqual([[], [], ["task.run_failed"], [], ["task.run_recovered"], [], []]);
    const failedNotice = (
      await db.execution.findMany({ where: { task_id: task.id }, orderBy: { created_at: "asc" } })
    )[2]!.notices;
    expect(failedNotice).toEqual([{ event: "task.run_failed", consecutive_failures: 3 }]);
  });
});
