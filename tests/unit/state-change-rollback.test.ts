/**
 * A state change whose scheduler call fails rolls back every change of the request and
 * answers 500. Run in-process on a real database (PostgreSQL in the Postgres tier) with a failing scheduler.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, type Database } from "@/server/db";
import { setScheduler, type Scheduler } from "@/server/scheduler";
import { updateTask } from "@/server/tasks/service";
import { openTestDatabase } from "../helpers/database";

let database: Database;
const calls: string[] = [];
const failing: Scheduler = {
  name: "failing",
  arm: async () => {
    calls.push("arm");
    throw new Error("scheduler unreachable");
  },
  disarm: async () => {
    calls.push("disarm");
    throw new Error("scheduler unreachable");
  },
  runNow: async () => {},
  cancelRun: async () => {},
  health: async () => "down",
  armDigest: async () => {},
  disarmDigest: async () => {},
  armRetention: async () => {},
  sendFinding: async () => {},
};

beforeAll(async () => {
  database = await openTestDatabase();
  setScheduler(failing);
});

afterAll(async () => {
  setScheduler(undefined);
  await database?.close();
});

describe("state change rollback", () => {
  it("restores fields, state and notifications and answers 500 with the spec text", async () => {
    const user = await db.user.create({ data: { clerk_user_id: "user_rollback", email: "r@example.com" } });
    const task = await db.task.create({
      data: {
        user_id: user.id,
        name: "before",
        search_query: "q",
        condition_description: "c",
        state: "active",
        next_run: new Date(),
        notifications: { create: [{ type: "email", config: { address: "keep@example.com" } }] },
      },
    });
    const err = await updateTask(user, {
      id: task.id,
      name: "after",
      state: "paused",
      notifications: [{ type: "webhook", url: "https://example.com/hook" }],
    }).catch((e) => e);
    expect(err.code).toBe("internal");
    expect(err.message).toBe("Failed to change task state: scheduler unreachable. Task update rolled back.");
    expect(calls).toEqual(["disarm"]);
    const after = await db.task.findUniqueOrThrow({ where: { id: task.id }, include: { notifications: true } });
    expect(after).toMatchObject({ name: "before", state: "active", updated_at: null });
    expect(after.next_run?.getTime()).toBe(task.next_run?.getTime());
    expect(after.notifications.map((n) => [n.type, (n.config as { address?: string }).address])).toEqual([
      ["email", "keep@example.com"],
    ]);
  });

  it("does not call the scheduler when the state does not change", async () => {
    calls.length = 0;
    const user = await db.user.create({ data: { clerk_user_id: "user_rollback2", email: "r2@example.com" } });
    const task = await db.task.create({
      data: { user_id: user.id, name: "n", search_query: "q", condition_description: "c", state: "paused" },
    });
    const updated = await updateTask(user, { id: task.id, name: "renamed", state: "paused" });
    expect(updated.name).toBe("renamed");
    expect(calls).toEqual([]);
  });
});
