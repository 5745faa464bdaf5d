/**
 * A watch is read two ways: the SQL read of every display (server/tasks/reads.ts) and the row a Prisma write returns
 * (`taskInclude`). Both must give the same view, field for field. On PostgreSQL in the Postgres tier.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { findTask } from "@/server/tasks/reads";
import { createTask } from "@/server/tasks/service";
import { ownerTaskView, taskInclude, type TaskRow } from "@/server/tasks/views";
import { withTestDatabase } from "../helpers/database";

withTestDatabase();

describe("watch rows", () => {
  it("map to the same owner view from the SQL read and from a Prisma write", async () => {
    const user = await db.user.create({
      data: { clerk_user_id: `user_${Date.now()}`, email: "p@example.com", username: `p${Date.now()}` },
    });
    const task = await db.task.create({
      data: {
        user_id: user.id,
        name: "parity",
        search_query: "q",
        condition_description: "c",
        next_run: new Date(Date.now() + 60_000),
        last_known_state: { seen: ["a", 1] },
        notifications: {
          create: [
            { type: "webhook", config: { url: "https://h.example.com/x", method: "PUT", headers: { "x-a": "1" } } },
            { type: "email", config: { address: "p@example.com" } },
          ],
        },
      },
    });
    const execution = await db.execution.create({
      data: {
        task_id: task.id,
        status: "success",
        completed_at: new Date(),
        condition_met: true,
        result: {
          condition_met: true,
          answer: "a",
          evidence: "e",
          confidence: 0.5,
          model: "m",
          usage: { input_tokens: 1, output_tokens: 2 },
          duration_ms: 3,
        },
        notification: { title: "t", markdown: "m" },
        grounding_sources: [{ url: "https://s.example.com", title: "s" }],
      },
    });
    const written = await db.task.update({
      where: { id: task.id },
      data: { last_execution_id: execution.id, notified_execution_id: execution.id, updated_at: new Date() },
      include: taskInclude,
    });
    const read = (await findTask(task.id))!;
    expect(ownerTaskView(read)).toEqual(ownerTaskView(written as TaskRow));
    // The watch's own columns, without the text the database keeps for searches.
    expect(Object.keys(read)).toEqual(expect.arrayContaining(Object.keys(task)));
    expect(read).not.toHaveProperty("searched");
    expect(ownerTaskView(read).last_execution?.result).toMatchObject({ usage: { input_tokens: 1, output_tokens: 2 } });
    expect(ownerTaskView(read).resolution).toEqual({
      status: "met",
      since: execution.completed_at!.toISOString(),
      answer: "a",
      sources: [{ url: "https://s.example.com", title: "s", domain: "example.com" }],
    });

    // Retracted, the verdict is back to watching on both paths.
    await db.execution.update({ where: { id: execution.id }, data: { retracted_by_execution_id: execution.id } });
    const rewritten = await db.task.update({
      where: { id: task.id },
      data: { state: "completed" },
      include: taskInclude,
    });
    const reread = (await findTask(task.id))!;
    expect(ownerTaskView(reread)).toEqual(ownerTaskView(rewritten as TaskRow));
    expect(ownerTaskView(reread).resolution).toEqual({ status: "watching", since: null, answer: null, sources: [] });

    // Failing: both paths read the latest failed run's error, which the verdict says in words.
    await db.execution.create({
      data: {
        task_id: task.id,
        status: "failed",
        error_message: "The agent run timed out after 120 s",
        completed_at: new Date(),
      },
    });
    const failing = await db.task.update({
      where: { id: task.id },
      data: { state: "active", failure_streak: 3, failing_since: new Date() },
      include: taskInclude,
    });
    const failingRead = (await findTask(task.id))!;
    expect(ownerTaskView(failingRead)).toEqual(ownerTaskView(failing as TaskRow));
    expect(ownerTaskView(failingRead).verdict).toMatchObject({
      state: "cant_check",
      failure: "ours",
      reason: "The check took too long and was stopped.",
    });
  });

  it("map to the same owner view when just created (paused or active, with and without channels) as when read back", async () => {
    const user = await db.user.create({ data: { clerk_user_id: `user_${Date.now()}_new`, email: "n@example.com" } });
    const inputs = [
      { search_query: "paused, no channels", state: "paused" as const },
      { search_query: "active, channels", notifications: [{ type: "email" as const, address: "n@example.com" }] },
    ];
    for (const input of inputs) {
      const { immediate_execution_error, ...created } = await createTask(user, input);
      expect(immediate_execution_error).toBeNull();
      expect(created).toEqual(ownerTaskView((await findTask(created.id))!));
    }
  });
});
