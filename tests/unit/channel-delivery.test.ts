/**
 * Slack, Discord, Teams, Telegram and ntfy delivered to loopback stubs that answer as the services do: the payload each
 * receives, a send record per attempt (the channel's type, the recipient redacted), retries on 500 and on 429 with the
 * service's wait honoured, exactly once per attempt, a follower's own channel, and a test send.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStub, type StubReply, type StubRequest } from "../helpers/stubs/http";

// The service reads its configuration once, at its first import: the stubs first, then the service.
let reply: (req: StubRequest) => StubReply = () => ({ status: 200, text: "ok" });
const service = await startStub((req) => reply(req));
Object.assign(process.env, {
  WEBHOOK_ALLOW_PRIVATE: "1",
  TELEGRAM_API_URL: `${service.url}/telegram`,
  APP_URL: "https://watch.example.com",
});

const { db } = await import("@/server/db");
const { openTestDatabase } = await import("../helpers/database");
const { deliveryOf } = await import("@/server/notify/channels");
const { sendTestNotification } = await import("@/server/notify");
const { channelDelivery } = await import("@/server/runs/workflow");
type Database = Awaited<ReturnType<typeof openTestDatabase>>;

const TOKEN = "123456789:AAHabcdefghijklmnopqrstuvwxyz_1234";
const SOURCE = "https://news.example.org/iphone-18";
const HOSTILE = "Announced for 9 September @everyone <!channel> [click](https://evil.example/x) <b>now</b>";
let database: Database;
let ownerId: string;
let taskId: string;
let executionId: string;

const CONFIGS = () => ({
  slack: { url: `${service.url}/slack/services/T1/B2/secretSLACK` },
  discord: { url: `${service.url}/discord/api/webhooks/1/secretDISC` },
  teams: { url: `${service.url}/teams/workflows/abc/triggers/manual/paths/invoke?sig=secretTEAM` },
  telegram: { bot_token: TOKEN, chat_id: "-1001234567890" },
  ntfy: { url: `${service.url}/ntfy/phone-alerts`, token: "tk_secretNTFY" },
});
type ChatType = keyof ReturnType<typeof CONFIGS>;
const TYPES = Object.keys(CONFIGS()) as ChatType[];

beforeAll(async () => {
  database = await openTestDatabase();
  const owner = await db.user.create({ data: { clerk_user_id: "user_owner", email: "owner@example.com" } });
  ownerId = owner.id;
  const task = await db.task.create({
    data: {
      user_id: owner.id,
      name: "iPhone 18 release date",
      search_query: "iPhone 18 release date",
      condition_description: "Apple announced the date",
      state: "active",
      is_public: true,
      notifications: { create: TYPES.map((type) => ({ type, config: CONFIGS()[type] })) },
    },
  });
  taskId = task.id;
  const execution = await db.execution.create({
    data: {
      task_id: task.id,
      status: "success",
      condition_met: true,
      completed_at: new Date(),
      result: { condition_met: true, answer: HOSTILE, evidence: "", confidence: 0.92 },
      notification: { title: "iPhone 18: 9 September", markdown: HOSTILE },
      grounding_sources: [{ url: SOURCE, title: "News" }],
    },
  });
  executionId = execution.id;
});

afterAll(async () => {
  await service.close();
  await database?.close();
});

const met = { event: "task.condition_met" } as const;
const lastRequest = () => service.requests.at(-1)!;
const sends = (type: string) =>
  db.notificationSend.findMany({ where: { notification_type: type as never }, orderBy: { attempt: "asc" } });

describe("each channel's delivery", () => {
  it.each(TYPES)("%s: the service's payload, one send record with the recipient redacted", async (type) => {
    reply = () => ({ status: 200, json: { ok: true } });
    const before = service.requests.length;
    expect(await deliveryOf(type)!.deliver(executionId, met, 1)).toMatchObject({ status: "sent", retry: false });
    expect(service.requests.length).toBe(before + 1);
    const req = lastRequest();
    const body = JSON.parse(req.body);
    expect(req.headers["content-type"]).toBe("application/json");
    switch (type) {
      case "slack":
        expect(req.url).toBe("/slack/services/T1/B2/secretSLACK");
        expect(body.text).toContain("Condition met");
        expect(body.blocks.map((b: { type: string }) => b.type)).toEqual([
          "header",
          "section",
          "context",
          "section",
          "actions",
        ]);
        expect(req.body).toContain("&lt;!channel&gt;");
        break;
      case "discord":
        expect(req.url).toBe("/discord/api/webhooks/1/secretDISC");
        expect(body.allowed_mentions).toEqual({ parse: [] });
        expect(body.embeds[0]).toMatchObject({ url: `https://watch.example.com/w/${taskId}`, color: 0x16a34a });
        expect(body.embeds[0].fields[0]).toEqual({ name: "Confidence", value: "92%", inline: true });
        break;
      case "teams":
        expect(req.url).toBe("/teams/workflows/abc/triggers/manual/paths/invoke?sig=secretTEAM");
        expect(body.attachments[0].content).toMatchObject({ type: "AdaptiveCard", version: "1.4" });
        break;
      case "telegram":
        expect(req.url).toBe(`/telegram/bot${TOKEN}/sendMessage`);
        expect(body).toMatchObject({ chat_id: "-1001234567890", parse_mode: "HTML" });
        expect(body.text).toContain("&lt;b&gt;now&lt;/b&gt;");
        break;
      case "ntfy":
        expect(req.url).toBe("/ntfy");
        expect(req.headers.authorization).toBe("Bearer tk_secretNTFY");
        expect(body).toMatchObject({ topic: "phone-alerts", markdown: true, priority: 4, tags: ["white_check_mark"] });
        break;
    }
    expect(req.body).not.toContain("https://evil.example");
    const [record] = await sends(type);
    expect(record).toMatchObject({ status: "sent", event: "task.condition_met", attempt: 1, user_id: ownerId });
    expect(record!.recipient).not.toMatch(/secret|AAHabc/);
  });

  it("an attempt already made is not made again (a crash's replay)", async () => {
    const before = service.requests.length;
    expect(await deliveryOf("slack")!.deliver(executionId, met, 1)).toMatchObject({ status: "sent", retry: false });
    expect(service.requests.length).toBe(before);
  });
});

describe("retries", () => {
  /** A workflow step that runs steps at once and records the waits. */
  const fakeStep = () => {
    const sleeps: [string, number][] = [];
    return {
      sleeps,
      step: {
        run: <T>(_id: string, fn: () => Promise<T>) => fn(),
        sleep: async (id: string, ms: number) => void sleeps.push([id, ms]),
        send: async () => undefined,
      },
    };
  };

  it("a 500 is retried after 1, 5 and 30 minutes, every attempt recorded, then given up", async () => {
    reply = () => ({ status: 500, text: "oops" });
    const { step, sleeps } = fakeStep();
    const outcome = await channelDelivery(step, "teams", executionId, {
      event: "task.run_failed",
      consecutive_failures: 3,
    });
    expect(outcome).toEqual({ attempts: 4, status: "failed" });
    expect(sleeps).toEqual([
      ["teams-retry-1", 60_000],
      ["teams-retry-2", 300_000],
      ["teams-retry-3", 1_800_000],
    ]);
    const records = (await sends("teams")).filter((s) => s.event === "task.run_failed");
    expect(records.map((r) => [r.attempt, r.status, r.error_message])).toEqual(
      [1, 2, 3, 4].map((n) => [n, "failed", "HTTP 500: oops"]),
    );
  });

  it("a 429's Retry-After (or Discord's and Telegram's retry_after) sets the wait, within the planned one", async () => {
    let calls = 0;
    reply = (req) => {
      calls++;
      if (calls > 1) return { status: 200, json: { ok: true } };
      if (req.url.startsWith("/discord")) return { status: 429, json: { retry_after: 1.5, global: false } };
      if (req.url.startsWith("/telegram"))
        return { status: 429, json: { ok: false, error_code: 429, parameters: { retry_after: 7 } } };
      return { status: 429, text: "slow down", headers: { "retry-after": "12" } };
    };
    const waits: Record<string, number> = {};
    for (const type of ["slack", "discord", "telegram"] as const) {
      calls = 0;
      const { step, sleeps } = fakeStep();
      const outcome = await channelDelivery(step, type, executionId, { event: "task.run_recovered" });
      expect(outcome).toEqual({ attempts: 2, status: "sent" });
      waits[type] = sleeps[0]![1];
    }
    expect(waits).toEqual({ slack: 12_000, discord: 1_500, telegram: 7_000 });
  });

  it("a channel the watch does not have ends at once", async () => {
    const { step, sleeps } = fakeStep();
    const other = await db.task.create({
      data: { user_id: ownerId, name: "n", search_query: "q", condition_description: "c", state: "active" },
    });
    const run = await db.execution.create({ data: { task_id: other.id, status: "success" } });
    expect(await channelDelivery(step, "ntfy", run.id, met)).toEqual({ attempts: 1, status: "none" });
    expect(sleeps).toEqual([]);
  });
});

describe("followers and test sends", () => {
  it("a signed-in follower's Discord channel gets the finding, in the follower's history", async () => {
    reply = () => ({ status: 204 });
    const follower = await db.user.create({ data: { clerk_user_id: "user_follower", email: "f@example.com" } });
    const follow = await db.follow.create({
      data: {
        task_id: taskId,
        user_id: follower.id,
        confirmed_at: new Date(),
        notifications: [{ type: "discord", url: `${service.url}/discord/api/webhooks/9/followerSECRET` }],
      },
    });
    expect(await deliveryOf("discord")!.deliver(executionId, met, 1, follow.id)).toMatchObject({ status: "sent" });
    expect(lastRequest().url).toBe("/discord/api/webhooks/9/followerSECRET");
    const record = await db.notificationSend.findFirstOrThrow({ where: { audience: `follow:${follow.id}` } });
    expect(record).toMatchObject({ user_id: follower.id, notification_type: "discord", status: "sent" });
  });

  it("a test send reaches the channel and is recorded", async () => {
    reply = () => ({ status: 200, json: { ok: true, result: {} } });
    const owner = await db.user.findUniqueOrThrow({ where: { id: ownerId } });
    expect(await sendTestNotification(owner, taskId, "telegram")).toEqual({ status: "sent", error_message: null });
    expect(JSON.parse(lastRequest().body).text).toContain("Test notification");
    const record = await db.notificationSend.findFirstOrThrow({
      where: { notification_type: "telegram", event: "task.test" },
    });
    expect(record.status).toBe("sent");
  });
});
