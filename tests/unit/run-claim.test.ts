/**
 * The claim of a scheduled run (server/runs/steps.ts) racing a "Run now": the claim waits for the watch's
 * lock and must then see the execution the other transaction created, instead of starting a second run.
 * On PostgreSQL in the Postgres tier (DATABASE_URL), on the embedded database otherwise.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, openDatabase, type Database } from "@/server/db";
import { applyMigrations } from "@/server/db/schema-engine";
import { beginRun } from "@/server/runs/steps";
import { freshDatabaseUrl } from "../helpers/server";

let database: Database;

beforeAll(async () => {
  database = await openDatabase({
    databaseUrl: await freshDatabaseUrl(),
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "watch-unit-")),
    prepare: async (url) => void (await applyMigrations(new PrismaPg({ connectionString: url, max: 1 }))),
  });
}, 60_000);

afterAll(async () => {
  await database?.close();
});

describe("claiming a scheduled run", () => {
  it("waits for a concurrent Run now and then leaves the run to it", async () => {
    const user = await db.user.create({ data: { clerk_user_id: "user_claim", email: "c@example.com" } });
    const at = new Date();
    const task = await db.task.create({
      data: { user_id: user.id, name: "n", search_query: "q", condition_description: "c", state: "active", next_run: at },
    });

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
});
