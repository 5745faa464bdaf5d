/**
 * The served OpenAPI document's statuses are what the operations answer: every operation in it is called on its happy
 * path, in process (the REST handler the server routes /api/v1, /auth and /api/health to, and the route handlers of
 * the feeds and the badge), and must answer the success status the document gives it; the other successful statuses
 * an operation documents (following again, a conditional GET) are called too. An operation added to the document
 * fails here until it gets its call below.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelStub, startSearxStub, stubbedServiceEnv } from "../helpers/stubs/model";
import { startResendStub, startWebhookReceiver } from "../helpers/stubs/receivers";

// The service reads its configuration once, at its first import: the stubs first, then the service.
const stubs = { model: await startModelStub(), searx: await startSearxStub(), resend: await startResendStub() };
const receiver = await startWebhookReceiver();
Object.assign(process.env, stubbedServiceEnv(stubs));

const { openApiDocument } = await import("@/server/api/openapi");
const { handleRest } = await import("@/server/api/rest");
const { ENDPOINTS } = await import("@/server/http/endpoints");
const { db } = await import("@/server/db");
const { setScheduler } = await import("@/server/scheduler");
const { createApiKey } = await import("@/server/auth/api-key-service");
const { signToken, PAUSE_LINK_TTL_MS, FOLLOW_CONFIRM_TTL_MS } = await import("@/server/notify/links");
const { deliverWebhook } = await import("@/server/notify");
const { watchRun } = await import("@/server/runs/workflow");
const { openTestDatabase } = await import("../helpers/database");
const routeHandlers: Record<
  string,
  { GET: (req: Request, ctx: { params: Promise<{ id: string }> }) => Promise<Response> }
> = {
  [ENDPOINTS.rss.path]: await import("@/app/api/v1/public/tasks/id/[id]/rss/route"),
  [ENDPOINTS.jsonFeed.path]: await import("@/app/api/v1/public/tasks/id/[id]/feed.json/route"),
  [ENDPOINTS.badge.path]: await import("@/app/api/v1/public/tasks/id/[id]/badge.svg/route"),
};

type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
const doc = openApiDocument() as unknown as Doc;
const documented = (op: string) => {
  const [method, path] = op.split(" ");
  const responses = doc.paths[path!]?.[method!.toLowerCase()]?.responses;
  if (!responses) throw new Error(`${op} is not in the document`);
  return Object.keys(responses).map(Number);
};
/** An operation's success status when it documents one; one that documents two says which it expects. */
function primary(op: string) {
  const success = documented(op).filter((s) => s >= 200 && s < 300);
  if (success.length !== 1) throw new Error(`${op} documents ${success.join(" and ")}: say which the call expects`);
  return success[0]!;
}
const exercised = new Set<string>();

type Answer = { status: number; headers: Headers; body: any };
/**
 * Calls `op` ("METHOD /path/{param}") with its parameters and checks the answer: `expect` (default: the documented
 * success status), which the document must list.
 */
async function call(
  op: string,
  opts: {
    params?: Record<string, string>;
    query?: Record<string, string>;
    body?: unknown;
    auth?: string;
    headers?: Record<string, string>;
    expect?: number;
  } = {},
): Promise<Answer> {
  const [method, template] = op.split(" ") as [string, string];
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => opts.params?.[name] ?? `{${name}}`);
  const headers = new Headers({ "x-watch-client-ip": "127.0.0.1", ...opts.headers });
  if (opts.auth) headers.set("authorization", `Bearer ${opts.auth}`);
  if (opts.body !== undefined) headers.set("content-type", "application/json");
  const search = opts.query ? `?${new URLSearchParams(opts.query)}` : "";
  const request = new Request(`http://localhost${path}${search}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const route = routeHandlers[template];
  const res = route
    ? await route.GET(request, { params: Promise.resolve({ id: opts.params!.id! }) })
    : await handleRest(request);
  const text = await res.text();
  const status = opts.expect ?? primary(op);
  expect(res.status, `${op}: ${text.slice(0, 300)}`).toBe(status);
  expect(documented(op), `${op} answered ${res.status}, which the document does not list`).toContain(res.status);
  exercised.add(op);
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // a feed or an image
  }
  return { status: res.status, headers: res.headers, body };
}

/** A run of the watch in this process, the scheduler's steps inline; webhooks delivered at once. */
const inline = {
  run: <T>(_id: string, fn: () => Promise<T>) => fn(),
  sleep: async () => {},
  send: async (_id: string, followUp: { name: string; data: any }) => {
    if (followUp.name === "watch/webhook.deliver")
      await deliverWebhook(followUp.data.executionId, followUp.data.notice, 1, followUp.data.followId);
  },
};

let database: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  database = await openTestDatabase();
  setScheduler({
    name: "inline",
    arm: async () => {},
    disarm: async () => {},
    runNow: async () => {},
    cancelRun: async () => {},
    health: async () => "ok",
    armDigest: async () => {},
    disarmDigest: async () => {},
    armRetention: async () => {},
    sendFinding: async () => {},
  });
});

afterAll(async () => {
  setScheduler(undefined);
  await database?.close();
  await Promise.all([stubs.model.close(), stubs.searx.close(), stubs.resend.close(), receiver.close()]);
});

describe("every documented operation", { timeout: 120_000 }, () => {
  it("answers the success status the document gives it", async () => {
    // You (the development test user, an admin) and someone else with an API key.
    await call("POST /auth/sync-user");
    await call("GET /auth/me");
    await call("POST /auth/mark-welcome-seen");
    await call("PATCH /api/v1/users/me/username", { body: { username: "statuses" } });
    await call("GET /api/v1/users/username/available", { query: { username: "someone" } });
    await call("PATCH /api/v1/users/me/settings", { body: { timezone: "Europe/Paris" } });
    await call("GET /api/v1/webhooks/secret");
    await call("POST /api/v1/webhooks/secret/rotate", { body: { overlap_hours: 1 } });
    const key = await call("POST /auth/api-keys", { body: { name: "statuses" } });
    await call("GET /auth/api-keys");
    await call("DELETE /auth/api-keys/{id}", { params: { id: key.body.key_info.id } });
    const other = await db.user.create({
      data: { clerk_user_id: "user_statuses_other", email: "other@example.com", role: "developer" },
    });
    const them = (await createApiKey(other, "statuses")).key;

    // A watch, its run and what the run delivered.
    const task = await call("POST /api/v1/tasks", {
      body: {
        search_query: "Postgres 19 beta release",
        notifications: [{ type: "webhook", url: receiver.url }],
      },
    });
    const id = task.body.id as string;
    await call("GET /api/v1/tasks");
    await call("GET /api/v1/tasks/{id}", { params: { id } });
    await call("POST /api/v1/tasks/{id}/seen", { params: { id } });
    await call("POST /api/v1/tasks/{id}/keep-watching", { params: { id } });
    await call("PUT /api/v1/tasks/{id}", { params: { id }, body: { name: "Postgres 19 beta" } });
    await call("POST /api/v1/tasks/preview", { body: { search_query: "Postgres 19 beta release" } });
    const execution = await call("POST /api/v1/tasks/{id}/execute", { params: { id }, query: { force: "true" } });
    await watchRun(inline, id, { executionId: execution.body.id });
    await call("GET /api/v1/tasks/{id}/executions", { params: { id } });
    await call("GET /api/v1/tasks/{id}/notifications", { params: { id } });
    const [finding] = (await call("GET /api/v1/tasks/{id}/findings", { params: { id } })).body;
    // Sent by its run already (a held one is sent in tests/service/send-anyway.test.ts).
    await call("POST /api/v1/tasks/{id}/findings/{key}/send", { params: { id, key: finding.key }, expect: 409 });
    await call("GET /api/v1/tasks/{id}/history", { params: { id } });
    const sends = await call("GET /api/v1/notifications/sends", { query: { notification_type: "webhook" } });
    const send = sends.body.sends.find((s: { event: string }) => s.event === "task.condition_met");
    await call("POST /api/v1/notifications/sends/{id}/redeliver", { params: { id: send.id } });
    await call("POST /api/v1/tasks/{id}/notifications/test", { params: { id }, body: { type: "webhook" } });
    await call("POST /api/v1/notifications/test", {
      body: { notification: { type: "webhook", url: receiver.url }, name: "Statuses" },
    });
    await call("GET /api/v1/usage");
    await call("GET /api/v1/usage/tasks");

    // Public: reads (each again with the ETag it gave: 304), follows, forks.
    await call("PATCH /api/v1/tasks/{id}/visibility", { params: { id }, body: { is_public: true } });
    await call("GET /api/v1/public/tasks");
    await call("GET /api/v1/public/tasks/id/{id}/findings", { params: { id } });
    for (const read of [
      "GET /api/v1/public/tasks/id/{id}",
      "GET /api/v1/public/tasks/id/{id}/rss",
      "GET /api/v1/public/tasks/id/{id}/feed.json",
      "GET /api/v1/public/tasks/id/{id}/badge.svg",
    ]) {
      const first = await call(read, { params: { id } });
      await call(read, { params: { id }, headers: { "if-none-match": first.headers.get("etag")! }, expect: 304 });
    }
    await call("POST /api/v1/public/tasks/id/{id}/follow", { params: { id }, body: { email: "reader@example.com" } });
    const byEmail = await db.follow.findFirstOrThrow({ where: { task_id: id, email: "reader@example.com" } });
    await call("POST /api/v1/public/follows/confirm", {
      body: { token: await signToken("follow-confirm", byEmail.id, FOLLOW_CONFIRM_TTL_MS) },
    });
    await call("POST /api/v1/public/follows/unsubscribe", {
      body: { token: await signToken("unsubscribe", byEmail.id, null) },
    });
    const channels = [{ type: "email", address: "other@example.com" }];
    await call("POST /api/v1/tasks/{id}/follow", {
      params: { id },
      auth: them,
      body: { notifications: channels },
      expect: 201,
    });
    await call("POST /api/v1/tasks/{id}/follow", {
      params: { id },
      auth: them,
      body: { notifications: channels },
      expect: 200,
    });
    await call("GET /api/v1/follows", { auth: them });
    await call("DELETE /api/v1/tasks/{id}/follow", { params: { id }, auth: them });
    const fork = await call("POST /api/v1/tasks/{id}/fork", { params: { id }, auth: them, body: {} });

    // The waitlist, the links in emails, and a deletion.
    await call("POST /api/v1/public/waitlist", { body: { email: "early@example.com" } });
    await call("GET /api/v1/admin/waitlist");
    const me = await db.user.findFirstOrThrow({ where: { clerk_user_id: "user_noauth" } });
    await db.emailVerification.create({ data: { user_id: me.id, email: "me@example.com", token: "verify-statuses" } });
    await call("POST /api/v1/email/verify", { body: { token: "verify-statuses" } });
    await call("POST /api/v1/email/pause", {
      body: { task: id, token: await signToken("pause", id, PAUSE_LINK_TTL_MS) },
    });
    await call("DELETE /api/v1/tasks/{id}", { params: { id: fork.body.id }, auth: them });

    // The health check is answered below.
    const all = Object.entries(doc.paths).flatMap(([path, item]) =>
      path === "/api/health" ? [] : Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(all.filter((op) => !exercised.has(op))).toEqual([]);
  });

  it("answers a domain validation failure (min over max cadence, checked against the stored value) with the 422 list", async () => {
    const task = await call("POST /api/v1/tasks", {
      body: { search_query: "cadence", state: "paused", min_interval_minutes: 120 },
    });
    const res = await call("PUT /api/v1/tasks/{id}", {
      params: { id: task.body.id },
      body: { max_interval_minutes: 60 },
      expect: 422,
    });
    expect(res.body.detail).toEqual([
      expect.objectContaining({ type: "value_error", loc: ["body", "max_interval_minutes"], input: 60 }),
    ]);
  });
});

describe("the health check", () => {
  it("is answered and never rate limited (monitors poll it), and documented so", async () => {
    const responses = doc.paths["/api/health"]!.get!.responses as Record<
      string,
      { description: string; headers?: unknown }
    >;
    expect(Object.keys(responses)).toEqual(["default"]);
    expect(responses.default!.description).toMatch(/^200 when the service is healthy; 503 when .*Not rate limited$/);
    expect(responses.default!.headers).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      const res = await handleRest(
        new Request("http://localhost/api/health", { headers: { "x-watch-client-ip": "127.0.0.1" } }),
      );
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });
});

describe("the wire facts, on every transport", () => {
  it("counts an operation's rate limit and sets its success status for in-process callers (the dashboard, MCP) as for REST", async () => {
    const { appRouter } = await import("@/server/api/root");
    const { createContext } = await import("@/server/api/trpc");
    const { limitOf } = await import("@/server/ratelimit");
    const client = { "x-watch-client-ip": "10.9.8.7" };
    const context = () => createContext({ headers: new Headers(client), via: "server" });

    const limit = limitOf("waitlist");
    for (let i = 0; i < limit; i++) {
      const ctx = context();
      await appRouter.createCaller(ctx).public.joinWaitlist({ email: `in-process${i}@example.com` });
      expect(ctx.res.headers["X-RateLimit-Remaining"]).toBe(String(limit - i - 1));
    }
    await expect(
      appRouter.createCaller(context()).public.joinWaitlist({ email: "one-more@example.com" }),
    ).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    // The same client over REST has spent the same bucket.
    const rest = await call("POST /api/v1/public/waitlist", {
      headers: client,
      body: { email: "rest@example.com" },
      expect: 429,
    });
    expect(rest.headers.get("x-ratelimit-limit")).toBe(String(limit));
    expect(Number(rest.headers.get("retry-after"))).toBeGreaterThan(0);

    // A deletion in process says 204, as REST answers it.
    const task = await call("POST /api/v1/tasks", { body: { search_query: "in process", state: "paused" } });
    const ctx = createContext({ headers: new Headers({ "x-watch-client-ip": "127.0.0.1" }), via: "server" });
    await appRouter.createCaller(ctx).tasks.delete({ id: task.body.id });
    expect(ctx.res.status).toBe(204);
  });
});
