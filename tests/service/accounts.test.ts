/**
 * Accounts follow Clerk (a new session refreshes the profile; Clerk's signed webhooks deactivate or delete an account
 * at once; tokens for another origin are refused) and the quotas (active watches, monthly runs, with one notice).
 */
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { mintSessionToken } from "../helpers/clerk";
import { uniqueId } from "../helpers/client";
import { withService } from "../helpers/service";
import { decisionFor } from "../helpers/stubs/model";
import { waitFor } from "../helpers/wait";

const WEBHOOK_SECRET = `whsec_${Buffer.from("clerk-webhook-test-secret-0123456789").toString("base64")}`;
/** APP_URL's origin: session tokens must be issued for it (no CLERK_AUTHORIZED_PARTIES). */
const APP_ORIGIN = "http://localhost:8000";

const app = withService({
  APP_URL: APP_ORIGIN,
  CLERK_AUTHORIZED_PARTIES: undefined,
  // The test user of the budget test; every other request here carries a token.
  SERVICE_NOAUTH: "1",
  CLERK_WEBHOOK_SECRET: WEBHOOK_SECRET,
  MAX_ACTIVE_TASKS_PER_USER: "2",
  RUNS_PER_USER_PER_MONTH: "2",
});
const api = app.call;
const testClerkKeys = async () => app.stubs.clerk.keys;
const appOrigin = () => APP_ORIGIN;

beforeAll(() => app.stubs.model.decide((query) => decisionFor({ finding_key: `${query}-${Date.now()}` })));

async function signIn(role?: "developer", opts: { sessionId?: string } = {}) {
  const clerkId = uniqueId(role === "developer" ? "user_dev" : "user");
  const token = await mintSessionToken(await testClerkKeys(), clerkId, { azp: appOrigin(), ...opts });
  const synced = await api("POST", "/auth/sync-user", { auth: token });
  expect(synced.status).toBe(200);
  return { clerkId, token, id: synced.body.user.id as string };
}

const editAtClerk = (clerkId: string, patch: Record<string, unknown>) => app.stubs.clerk.edit(clerkId, patch);

function clerkWebhook(type: string, data: Record<string, unknown>, secret = WEBHOOK_SECRET) {
  const id = `msg_${uniqueId()}`;
  const body = JSON.stringify({ type, object: "event", data, timestamp: Date.now(), instance_id: "ins_test" });
  const signature = new Webhook(secret).sign(id, new Date(), body);
  return app.fetch("/api/webhooks/clerk", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "svix-id": id,
      "svix-timestamp": String(Math.floor(Date.now() / 1000)),
      "svix-signature": signature,
    },
    body,
  });
}

describe("accounts follow Clerk", () => {
  it("refreshes role and email from Clerk once per new session", async () => {
    const user = await signIn();
    expect((await api("POST", "/auth/api-keys", { auth: user.token, body: { name: "k" } })).status).toBe(403);
    await editAtClerk(user.clerkId, { public_metadata: { role: "developer" } });
    // The same session keeps the profile it started with…
    expect((await api("POST", "/auth/api-keys", { auth: user.token, body: { name: "k" } })).status).toBe(403);
    // …a new sign-in reads it again.
    const next = await mintSessionToken(await testClerkKeys(), user.clerkId, {
      azp: appOrigin(),
      sessionId: `sess_${uniqueId()}`,
    });
    const created = await api("POST", "/auth/api-keys", { auth: next, body: { name: "k" } });
    expect(created.status).toBe(200);
  });

  it("refuses session tokens issued for another origin (azp), accepts APP_URL's", async () => {
    const user = await signIn();
    const keys = await testClerkKeys();
    const evil = await mintSessionToken(keys, user.clerkId, { azp: "https://evil.example" });
    expect((await api("GET", "/auth/me", { auth: evil })).status).toBe(401);
    const ours = await mintSessionToken(keys, user.clerkId, { azp: appOrigin() });
    expect((await api("GET", "/auth/me", { auth: ours })).status).toBe(200);
    // Test tokens elsewhere are issued for another origin, which this server does not accept.
    const other = await mintSessionToken(keys, user.clerkId);
    expect((await api("GET", "/auth/me", { auth: other })).status).toBe(401);
  });

  it("verifies Clerk's webhook signature; a banned user's key and session stop at once and their watches pause; unbanned they work again", async () => {
    const user = await signIn("developer");
    const key = (await api("POST", "/auth/api-keys", { auth: user.token, body: { name: "k" } })).body.key;
    const watch = (await api("POST", "/api/v1/tasks", { auth: key, body: { search_query: "banned user's watch" } }))
      .body;
    expect((await api("GET", "/auth/me", { auth: key })).status).toBe(200);

    const unsigned = await app.fetch("/api/webhooks/clerk", {
      method: "POST",
      body: JSON.stringify({ type: "user.deleted", data: { id: user.clerkId } }),
    });
    expect(unsigned.status).toBe(400);
    const forged = await clerkWebhook(
      "user.deleted",
      { id: user.clerkId },
      `whsec_${Buffer.from("another-secret-of-enough-length!").toString("base64")}`,
    );
    expect(forged.status).toBe(400);
    expect(await forged.json()).toEqual({ detail: "Invalid webhook signature" });
    expect((await api("GET", "/auth/me", { auth: key })).status).toBe(200);

    const profile = {
      id: user.clerkId,
      first_name: "B",
      email_addresses: [{ id: "e1", email_address: "b@example.com" }],
      primary_email_address_id: "e1",
      public_metadata: { role: "developer" },
    };
    const banned = await clerkWebhook("user.updated", { ...profile, banned: true });
    expect(await banned.json()).toEqual({ status: "updated" });
    expect((await api("GET", "/auth/me", { auth: key })).body).toEqual({ detail: "Invalid API key" });
    expect((await api("GET", "/auth/me", { auth: user.token })).body).toEqual({ detail: "Account disabled" });

    await clerkWebhook("user.updated", { ...profile, banned: false });
    const me = await api("GET", "/auth/me", { auth: key });
    expect(me.body).toMatchObject({ email: "b@example.com", first_name: "B", is_active: true });
    expect((await api("GET", `/api/v1/tasks/${watch.id}`, { auth: key })).body).toMatchObject({
      state: "paused",
      next_run: null,
    });
  });

  it("deletes the account when Clerk deletes the user; unknown users are ignored", async () => {
    const user = await signIn("developer");
    const key = (await api("POST", "/auth/api-keys", { auth: user.token, body: { name: "k" } })).body.key;
    await api("POST", "/api/v1/tasks", { auth: key, body: { search_query: "deleted user's watch" } });
    expect(await (await clerkWebhook("user.deleted", { id: user.clerkId, deleted: true })).json()).toEqual({
      status: "deleted",
    });
    expect((await api("GET", "/auth/me", { auth: key })).status).toBe(401);
    expect((await api("GET", "/auth/me", { auth: user.token })).status).toBe(404);
    expect(await (await clerkWebhook("user.deleted", { id: "user_never_seen" })).json()).toEqual({
      status: "unknown user",
    });
    expect(await (await clerkWebhook("session.created", { id: "sess_1" })).json()).toEqual({ status: "ignored" });
  });
});

describe("quotas", () => {
  it("refuses a third active watch on create and resume (403), not paused ones or forks", async () => {
    const user = await signIn();
    const create = (body: Record<string, unknown>) =>
      api("POST", "/api/v1/tasks", { auth: user.token, body: { search_query: "cap", ...body } });
    const first = (await create({})).body;
    await create({});
    const third = await create({});
    expect(third.status).toBe(403);
    expect(third.body).toEqual({ detail: "Active task limit reached (2). Pause or complete a task first." });
    const paused = (await create({ state: "paused" })).body;
    expect(paused.state).toBe("paused");
    expect(
      (await api("PUT", `/api/v1/tasks/${paused.id}`, { auth: user.token, body: { state: "active" } })).status,
    ).toBe(403);
    expect((await api("POST", `/api/v1/tasks/${first.id}/fork`, { auth: user.token })).body.state).toBe("paused");
    await api("PUT", `/api/v1/tasks/${first.id}`, { auth: user.token, body: { state: "paused" } });
    expect(
      (await api("PUT", `/api/v1/tasks/${paused.id}`, { auth: user.token, body: { state: "active" } })).status,
    ).toBe(200);
    // Concurrent creates cannot pass the count together.
    await api("PUT", `/api/v1/tasks/${paused.id}`, { auth: user.token, body: { state: "paused" } });
    const burst = await Promise.all(Array.from({ length: 4 }, () => create({})));
    expect(burst.map((r) => r.status).sort()).toEqual([200, 403, 403, 403]);
  });

  it("previews what the agent would answer without saving anything; a preview counts one run of the budget", async () => {
    const user = await signIn();
    const preview = await api("POST", "/api/v1/tasks/preview", {
      auth: user.token,
      body: { search_query: "Postgres 19 beta", min_sources: 2 },
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      condition_met: true,
      confidence: 0.9,
      gate: { passed: false, reason: "1 independent source, 2 required" },
      model: "openai-compatible:stub",
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
    expect(preview.body.sources[0]).toMatchObject({ url: expect.stringMatching(/^https:/) });
    expect((await api("GET", "/api/v1/tasks", { auth: user.token })).body).toEqual([]);
    expect((await api("GET", "/api/v1/usage", { auth: user.token })).body).toMatchObject({
      runs: 1,
      input_tokens: preview.body.usage.input_tokens,
    });
    expect(
      (await api("POST", "/api/v1/tasks/preview", { auth: user.token, body: { search_query: "again" } })).status,
    ).toBe(200);
    const over = await api("POST", "/api/v1/tasks/preview", { auth: user.token, body: { search_query: "once more" } });
    expect(over.status).toBe(403);
    expect(over.body.detail).toMatch(/^Monthly run budget of 2 reached; runs resume on \d{4}-\d{2}-01$/);
    expect((await api("POST", "/api/v1/tasks/preview", { auth: user.token, body: { search_query: "" } })).status).toBe(
      422,
    );
    // Without any model configured.
    app.setEnv({ AGENT_MODEL: undefined, AGENT_BASE_URL: undefined });
    try {
      const noModel = await api("POST", "/api/v1/tasks/preview", {
        auth: (await signIn()).token,
        body: { search_query: "x" },
      });
      expect(noModel.status).toBe(503);
      expect(noModel.body.detail).toMatch(/^No model configured: /);
    } finally {
      app.setEnv({});
    }
  });

  it("spends the monthly run budget: Run now answers 403, a scheduled run is recorded cancelled and re-armed for next month", async () => {
    // The NOAUTH test user of this server; every run succeeds at once.
    const first = (
      await api("POST", "/api/v1/tasks", { body: { search_query: "budget", state: "paused", run_immediately: true } })
    ).body;
    expect(first.immediate_execution_error).toBeNull();
    const succeeded = async (id: string, n: number) =>
      (await api("GET", `/api/v1/tasks/${id}/executions?status=success`)).body.length >= n;
    await waitFor("the first run", () => succeeded(first.id, 1));
    expect((await api("POST", `/api/v1/tasks/${first.id}/execute`)).status).toBe(200);
    await waitFor("the second run", () => succeeded(first.id, 2));

    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const text = `Monthly run budget of 2 reached; runs resume on ${nextMonth.toISOString().slice(0, 10)}`;
    expect((await api("POST", `/api/v1/tasks/${first.id}/execute`)).body).toEqual({ detail: text });

    const created = (
      await api("POST", "/api/v1/tasks", { body: { search_query: "over budget", run_immediately: true } })
    ).body;
    expect(created.immediate_execution_error).toBe(text);
    const cancelled = await waitFor("the scheduled run to be refused", async () => {
      const [e] = (await api("GET", `/api/v1/tasks/${created.id}/executions`)).body;
      return e?.status === "cancelled" && e;
    });
    expect(cancelled.error_message).toBe(text);
    expect((await api("GET", `/api/v1/tasks/${created.id}`)).body).toMatchObject({
      state: "active",
      next_run: nextMonth.toISOString(),
    });

    // One notice per period, to the account's address, however many runs wait.
    const notices = () =>
      app.stubs.resend
        .emails()
        .filter((m) => m.to === "test@localhost" && m.subject.startsWith("Your watches paused for this month"));
    await waitFor("the budget notice", async () => notices().length === 1);
    const another = (
      await api("POST", "/api/v1/tasks", { body: { search_query: "also over budget", state: "paused" } })
    ).body;
    await api("PUT", `/api/v1/tasks/${another.id}`, { body: { state: "active" } });
    await waitFor(
      "its run to be refused too",
      async () => (await api("GET", `/api/v1/tasks/${another.id}/executions`)).body[0]?.status === "cancelled",
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(notices()).toHaveLength(1);
    const sends = (await api("GET", `/api/v1/notifications/sends?event=account.budget_exhausted`)).body;
    expect(sends.sends.map((s: { notification_type: string }) => s.notification_type)).toEqual(["email"]);
  });
});
