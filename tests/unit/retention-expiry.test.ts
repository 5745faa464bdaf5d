/**
 * What the daily retention job forgets besides old runs: follows by email never confirmed within their link's 7 days,
 * and the ids of Clerk webhook deliveries older than 30 days (server/retention.ts).
 */
import { describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { pruneExecutions } from "@/server/retention";
import { withTestDatabase } from "../helpers/database";

withTestDatabase();

const DAY = 24 * 3_600_000;
const NOW = new Date("2026-11-26T03:00:00Z");
const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY);

describe("retention of what matters only for a while", () => {
  it("deletes follows unconfirmed for 7 days and Clerk delivery ids past 30 days, nothing else", async () => {
    const user = await db.user.create({
      data: { clerk_user_id: `user_${Math.random().toString(36).slice(2)}`, email: "o@example.com" },
    });
    const task = await db.task.create({
      data: { user_id: user.id, name: "n", search_query: "q", condition_description: "c", is_public: true },
    });
    const follow = (email: string, days: number, confirmed: boolean) =>
      db.follow.create({
        data: {
          task_id: task.id,
          email,
          mailbox: email,
          created_at: daysAgo(days),
          confirmed_at: confirmed ? daysAgo(days) : null,
        },
      });
    const expired = await follow("late@example.com", 8, false);
    const pending = await follow("soon@example.com", 6, false);
    const confirmed = await follow("fan@example.com", 300, true);
    await db.clerkWebhookEvent.createMany({
      data: [
        { svix_id: "msg_old", received_at: daysAgo(31) },
        { svix_id: "msg_recent", received_at: daysAgo(29) },
      ],
    });

    const pruned = await pruneExecutions({ now: NOW });
    expect(pruned).toMatchObject({ follows: 1, clerkEvents: 1 });
    const left = new Set((await db.follow.findMany({ where: { task_id: task.id } })).map((f) => f.id));
    expect(left.has(expired.id)).toBe(false);
    expect(left.has(pending.id)).toBe(true);
    expect(left.has(confirmed.id)).toBe(true);
    expect((await db.clerkWebhookEvent.findMany()).map((e) => e.svix_id)).toEqual(["msg_recent"]);
  });
});
