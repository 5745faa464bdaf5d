/**
 * Retention (server/retention.ts): which runs and send records the daily job deletes, in batches, and
 * the job as a workflow (it re-arms itself for the next 03:00 UTC under an id unique per time). On PostgreSQL in the
 * Postgres tier, on the embedded database otherwise.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { nextRetentionAt, pruneExecutions } from "@/server/retention";
import { followUpId, retentionRun, type FollowUp, type WorkflowStep } from "@/server/runs/workflow";
import { withTestDatabase } from "../helpers/database";

withTestDatabase();

const DAY = 24 * 3_600_000;
const NOW = new Date("2026-11-24T03:00:00Z");
const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY);

async function watchWithRuns(
  runs: {
    label: string;
    days: number;
    status?: "success" | "failed" | "cancelled" | "running";
    met?: boolean;
    notices?: unknown;
  }[],
) {
  const user = await db.user.create({
    data: { clerk_user_id: `user_${Math.random().toString(36).slice(2)}`, email: "r@example.com" },
  });
  const task = await db.task.create({
    data: { user_id: user.id, name: "n", search_query: "q", condition_description: "c" },
  });
  const ids = new Map<string, string>();
  for (const r of runs) {
    const e = await db.execution.create({
      data: {
        task_id: task.id,
        status: r.status ?? "success",
        condition_met: r.met ?? false,
        started_at: daysAgo(r.days),
        completed_at: r.status === "running" ? null : daysAgo(r.days),
        notices: r.notices === undefined ? undefined : (r.notices as object),
      },
    });
    ids.set(r.label, e.id);
  }
  return { user, task, ids };
}

const remaining = async (taskId: string) =>
  new Set((await db.execution.findMany({ where: { task_id: taskId }, select: { id: true } })).map((e) => e.id));

describe("retention", () => {
  it("deletes runs past 90 days that found nothing, and keeps findings, the last run, announcing runs and open runs", async () => {
    const { task, ids } = await watchWithRuns([
      { label: "old not met", days: 120 },
      { label: "old failed", days: 100, status: "failed" },
      { label: "old cancelled", days: 91, status: "cancelled" },
      { label: "old not met, no notices", days: 95, notices: [] },
      { label: "old finding", days: 200, met: true },
      { label: "old failure notice", days: 150, status: "failed", notices: [{ event: "task.run_failed" }] },
      { label: "old open", days: 100, status: "running" },
      { label: "recent not met", days: 89 },
      { label: "old last run", days: 98 },
    ]);
    await db.task.update({ where: { id: task.id }, data: { last_execution_id: ids.get("old last run") } });

    const pruned = await pruneExecutions({ now: NOW, batchSize: 2 });
    expect(pruned.executions).toBeGreaterThanOrEqual(4); // other tests' rows may be old too
    const left = await remaining(task.id);
    for (const label of ["old not met", "old failed", "old cancelled", "old not met, no notices"])
      expect(left.has(ids.get(label)!), label).toBe(false);
    for (const label of ["old finding", "old failure notice", "old open", "recent not met", "old last run"])
      expect(left.has(ids.get(label)!), label).toBe(true);
    expect((await pruneExecutions({ now: NOW })).executions).toBe(0);
  });

  it("deletes send records past 365 days", async () => {
    const { user } = await watchWithRuns([]);
    const send = (days: number) =>
      db.notificationSend.create({
        data: {
          user_id: user.id,
          recipient: "r@example.com",
          notification_type: "email",
          status: "sent",
          created_at: daysAgo(days),
        },
      });
    const [old, kept] = [await send(366), await send(364)];
    expect((await pruneExecutions({ now: NOW })).sends).toBeGreaterThanOrEqual(1);
    expect(await db.notificationSend.findUnique({ where: { id: old.id } })).toBeNull();
    expect(await db.notificationSend.findUnique({ where: { id: kept.id } })).not.toBeNull();
  });

  it("runs daily at 03:00 UTC, re-arming itself under an id per time, and trims the engine's history to 7 days", async () => {
    expect(nextRetentionAt(new Date("2026-11-24T02:59:59Z")).toISOString()).toBe("2026-11-24T03:00:00.000Z");
    expect(nextRetentionAt(new Date("2026-11-24T03:00:00Z")).toISOString()).toBe("2026-11-25T03:00:00.000Z");
    expect(nextRetentionAt(new Date("2026-12-31T22:00:00Z")).toISOString()).toBe("2027-01-01T03:00:00.000Z");

    const steps: string[] = [];
    const sent: FollowUp[] = [];
    const step: WorkflowStep = {
      run: async (id, fn) => (steps.push(id), fn()),
      sleep: async () => {},
      send: async (id, followUp) => void (steps.push(id), sent.push(followUp)),
    };
    let forgetBefore: Date | undefined;
    const result = await retentionRun(step, NOW.toISOString(), async (before) => ((forgetBefore = before), 7));
    expect(steps).toEqual(["prune", "forget-engine-history", "arm-next-retention"]);
    expect(result).toMatchObject({ executions: expect.any(Number), sends: expect.any(Number), workflows: 7 });
    expect(forgetBefore).toEqual(daysAgo(7));
    expect(sent).toEqual([{ name: "watch/retention.armed", data: { at: "2026-11-25T03:00:00.000Z" } }]);
    expect(followUpId(sent[0]!)).toBe(`retention:${Date.parse("2026-11-25T03:00:00Z")}`);
  });
});
