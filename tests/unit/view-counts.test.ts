/**
 * Page views are counted in memory and written in one statement per flush (server/tasks/view-counts.ts): views served
 * in between already include them, and a failed write keeps them for the next flush.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { findTask } from "@/server/tasks/reads";
import { countView, flushViewCounts, pendingViews } from "@/server/tasks/view-counts";
import { ownerTaskView } from "@/server/tasks/views";
import { withTestDatabase } from "../helpers/database";

const database = withTestDatabase();

async function watch() {
  const user = await db.user.create({
    data: { clerk_user_id: `user_${Math.random().toString(36).slice(2)}`, email: "v@example.com" },
  });
  return db.task.create({
    data: { user_id: user.id, name: "n", search_query: "q", condition_description: "c", is_public: true },
  });
}
const stored = async (id: string) => (await db.task.findUniqueOrThrow({ where: { id } })).view_count;

describe("view counts", () => {
  it("are served at once, written in one batch, and kept when the write fails", async () => {
    const [a, b] = [await watch(), await watch()];
    for (let i = 0; i < 3; i++) countView(a.id);
    countView(b.id);
    expect([pendingViews(a.id), pendingViews(b.id)]).toEqual([3, 1]);
    expect(ownerTaskView((await findTask(a.id))!).view_count).toBe(3);
    expect(await stored(a.id)).toBe(0);

    await flushViewCounts();
    expect([await stored(a.id), await stored(b.id)]).toEqual([3, 1]);
    expect(pendingViews(a.id)).toBe(0);
    expect(ownerTaskView((await findTask(a.id))!).view_count).toBe(3);

    countView(a.id);
    const pool = database().pool as unknown as { query: (...args: unknown[]) => Promise<unknown> };
    const query = pool.query;
    pool.query = async () => {
      throw new Error("connection lost");
    };
    await expect(flushViewCounts()).rejects.toThrow("connection lost");
    pool.query = query;
    countView(a.id);
    expect(pendingViews(a.id)).toBe(2);
    await flushViewCounts();
    expect(await stored(a.id)).toBe(5);
  });
});
