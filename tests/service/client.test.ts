/**
 * The SDK (client/) against the service (in-process, at `app.url`): every method, typed errors, NOAUTH mode, 429
 * retries, webhooks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  createClient,
  NotFoundError,
  RateLimitError,
  ValidationError,
  verifyWebhook,
  type WatchClient,
} from "@/client";
import { readSnapshot } from "@/client/generate";
import { withService } from "../helpers/service";
import { startStub } from "../helpers/stubs/http";
import { settledSends, waitFor } from "../helpers/wait";

// No model but in the last part: a run fails at once.
const app = withService({ AGENT_MODEL: undefined, AGENT_BASE_URL: undefined });
const { call, newApiKeyUser, newUser } = app;

it("client/openapi.json is what the server serves (run `npm run client:snapshot` after API changes)", async () => {
  const served = await call("GET", "/api/v1/openapi.json");
  expect(served.status).toBe(200);
  expect(served.body).toEqual(readSnapshot());
});

describe("SDK with an API key", () => {
  let sdk: WatchClient;
  let user: Awaited<ReturnType<typeof newApiKeyUser>>;
  beforeAll(async () => {
    user = await newApiKeyUser();
    sdk = createClient({ apiKey: user.apiKey, baseUrl: app.url });
  });

  it("notify takes the new channels as configs or Apprise URLs; reads show their secrets redacted", async () => {
    // An account of its own: the next test counts its account's watches.
    const sdk = createClient({ apiKey: (await newApiKeyUser()).apiKey, baseUrl: app.url });
    const created = await sdk
      .watch("Matrix 2.0 spec")
      .notify({
        channels: [
          {
            type: "matrix",
            homeserver: "https://matrix.example.org",
            access_token: "syt_secretAccessToken1",
            room: "!RoomId:example.org",
          },
          "pover://uQiRzpo4DXghDmr9QzzfQu27cmVRsG@azGDORePK8gMaC0QOYAMyEEuzJnyUi",
          "https://apprise.example.com/notify/relay-key-secret",
        ],
      })
      .paused()
      .create();
    expect(created.notifications).toEqual([
      { type: "matrix", homeserver: "https://matrix.example.org", access_token: "…ken1", room: "!RoomId:example.org" },
      { type: "pushover", token: "…nyUi", user: "…VRsG" },
      { type: "apprise", url: "https://apprise.example.com/…cret" },
    ]);
    // Sent back as read, the redacted secrets keep the stored ones.
    const updated = await sdk.watches.update(created.id, { notifications: created.notifications });
    expect(updated.notifications).toEqual(created.notifications);
  });

  it("covers every watch operation", async () => {
    expect((await sdk.me()).email).toBe(user.email);
    const created = await sdk
      .watch("Postgres 19 beta")
      .when("a beta release is announced")
      .named("pg19")
      .notify({ webhook: "https://example.com/hook" })
      .trust({ minConfidence: 0.8, minSources: 2 })
      .cadence({ minMinutes: 60, maxMinutes: 1440 })
      .paused()
      .create();
    expect(created).toMatchObject({
      name: "pg19",
      state: "paused",
      condition_description: "a beta release is announced",
    });
    expect(created).toMatchObject({
      min_confidence: 0.8,
      min_sources: 2,
      min_interval_minutes: 60,
      max_interval_minutes: 1440,
    });
    expect(created.notifications).toEqual([
      { type: "webhook", url: "https://example.com/hook", method: "POST", headers: {} },
    ]);
    expect((await sdk.watches.list()).map((t) => t.id)).toContain(created.id);
    expect(await sdk.watches.list({ state: "active" })).toEqual([]);
    expect((await sdk.watches.get(created.id)).id).toBe(created.id);
    expect((await sdk.watches.update(created.id, { name: "renamed" })).name).toBe("renamed");
    expect(await sdk.watches.history(created.id)).toEqual([
      { at: expect.any(String), changes: { name: { from: "pg19", to: "renamed" } } },
    ]);
    expect(await sdk.usage.get()).toMatchObject({ runs: 0, runs_limit: 3000, active_tasks: 0, active_tasks_limit: 50 });

    // No model here, so the run fails at once: the 409 while a run is open is checked with the stub model below.
    const execution = await sdk.watches.execute(created.id);
    expect(execution.status).toMatch(/pending|running|failed|success/);
    expect((await sdk.watches.execute(created.id, { force: true })).id).not.toBe(execution.id);
    expect((await sdk.watches.executions(created.id, { limit: 1 })).length).toBe(1);
    expect(await sdk.watches.findings(created.id)).toEqual([]);

    const fork = await sdk.watches.fork(created.id, { name: "mine too" });
    expect(fork).toMatchObject({ name: "mine too", state: "paused", forked_from_task_id: created.id });
    expect(await sdk.notifications.sends({ task_id: created.id, event: "task.condition_met" })).toEqual({
      sends: [],
      total: 0,
    });
    await expect(sdk.notifications.redeliver("00000000-0000-4000-8000-000000000000")).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(
      await sdk.notifications.test({ type: "webhook", url: `${app.stubs.receiver.url}/sdk-test` }, { name: "SDK" }),
    ).toEqual({ status: "sent", failure: null, error_message: null });
    expect(JSON.parse(app.stubs.receiver.to("/sdk-test").at(-1)!.body)).toMatchObject({
      type: "task.test",
      data: { task: { name: "SDK" } },
    });
    const secret = await sdk.webhookSecret.get();
    expect(secret).toMatch(/^whsec_/);
    expect(await sdk.webhookSecret.rotate({ overlapHours: 1 })).not.toBe(secret);
    expect((await sdk.webhookSecret.details()).previous_expires_at).not.toBeNull();

    // The list's order, words and found state; the seen mark; the delivery state (no notice yet).
    expect((await sdk.watches.list({ sort: "name" })).map((t) => t.name)).toEqual(["mine too", "renamed"]);
    expect(await sdk.watches.page({ sort: "attention", q: "MINE", state: "paused", limit: 1 })).toMatchObject({
      items: [{ name: "mine too", unseen: false, latest_answer: null, verdict: { state: "paused" } }],
      total: 1,
    });
    expect(await sdk.watches.list({ state: "met" })).toEqual([]);
    expect(await sdk.watches.seen(created.id)).toBeUndefined();
    expect(await sdk.watches.get(created.id)).toMatchObject({ unseen: false, delivery: [] });
    await expect(sdk.watches.seen("00000000-0000-4000-8000-000000000000")).rejects.toBeInstanceOf(NotFoundError);

    await sdk.watches.delete(fork.id);
    await expect(sdk.watches.get(fork.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("publishes a watch (with a username) that another user forks", async () => {
    await expect(
      sdk.watches.create({ search_query: "x", state: "paused" }).then((t) => sdk.watches.setVisibility(t.id, true)),
    ).rejects.toThrow(/username/i);
    const author = await newUser("developer", { username: `sdk${Date.now().toString(36)}` });
    const authorSdk = createClient({ apiKey: author.token, baseUrl: app.url });
    const task = await authorSdk.watches.create({ search_query: "Rust 2027 edition", state: "paused" });
    expect(await authorSdk.watches.setVisibility(task.id, true)).toEqual({ is_public: true });
    const fork = await sdk.watches.fork(task.id);
    expect(fork).toMatchObject({ forked_from_task_id: task.id, is_public: false, user_id: user.id });
    // Anyone may read it, with its verdict, and share it by its page, badge and feeds.
    const anonymous = createClient({ baseUrl: app.url });
    expect((await anonymous.public.get(task.id)).resolution).toEqual({
      status: "watching",
      since: null,
      answer: null,
      sources: [],
    });
    for (const url of [
      anonymous.public.badgeUrl(task.id),
      anonymous.public.feedUrl(task.id),
      anonymous.public.feedUrl(task.id, "rss"),
    ])
      expect((await fetch(url)).status, url).toBe(200);
    // The page, rendered by Next.js: tests/http/pages.test.ts.
    expect(anonymous.public.pageUrl(task.id)).toBe(`${app.url}/w/${task.id}`);
    expect(await authorSdk.watches.setVisibility(task.id, false)).toEqual({ is_public: false });
    await expect(sdk.watches.get(task.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(anonymous.public.get(task.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("maps errors to typed classes with the server's detail", async () => {
    const other = await newApiKeyUser();
    const theirs = await createClient({ apiKey: other.apiKey, baseUrl: app.url }).watches.create({
      search_query: "theirs",
      state: "paused",
    });
    const notFound = await sdk.watches.get(theirs.id).catch((e) => e);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound).toMatchObject({ status: 404, detail: "Task not found", message: "Task not found" });

    const invalid = await sdk.watches.create({ search_query: "" }).catch((e) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid.status).toBe(422);
    expect(invalid.fields[0]).toMatchObject({ loc: ["body", "search_query"] });
    expect(invalid.message).toMatch(/^search_query: /);

    const badChannel = await sdk.watches
      .create({ search_query: "x", notifications: [{ type: "email", address: "nope" }] })
      .catch((e) => e);
    expect(badChannel).toBeInstanceOf(ValidationError);
    expect(badChannel).toMatchObject({ status: 400, fields: [] });
    expect(badChannel.message).toMatch(/Invalid notification/);
  });

  it("API keys: create, list, revoke; a revoked key raises AuthenticationError", async () => {
    const dev = await newUser("developer");
    const dashboard = createClient({ apiKey: dev.token, baseUrl: app.url });
    const { key, key_info } = await dashboard.apiKeys.create("laptop");
    expect(key).toMatch(/^sk_[A-Za-z0-9]{32}$/);
    const withKey = createClient({ apiKey: key, baseUrl: app.url });
    expect((await withKey.me()).id).toBe(dev.id);
    expect((await withKey.apiKeys.list()).map((k) => [k.id, k.is_active])).toEqual([[key_info.id, true]]);
    expect(await withKey.apiKeys.revoke(key_info.id)).toEqual({ status: "revoked" });

    const e = await withKey.watches.list().catch((err) => err);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e).toMatchObject({ status: 401, detail: "Invalid API key" });
    await expect(createClient({ baseUrl: app.url, noauth: true }).me()).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe("retries", () => {
  it("retries a 429 after its Retry-After (and a 503), then raises RateLimitError when retries run out", async () => {
    let n = 0;
    const stub = await startStub(() =>
      ++n % 3 === 0
        ? { json: [] }
        : {
            status: n % 3 === 1 ? 429 : 503,
            headers: { "retry-after": "0" },
            json: { detail: "Rate limit exceeded. Try again in 0 seconds." },
          },
    );
    try {
      const patient = createClient({ baseUrl: stub.url, apiKey: "sk_test" });
      const started = Date.now();
      expect(await patient.watches.list()).toEqual([]);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(stub.requests.map((r) => r.headers.authorization)).toEqual(Array(3).fill("Bearer sk_test"));

      const impatient = createClient({ baseUrl: stub.url, apiKey: "sk_test", maxRetries: 0 });
      const limited = await impatient.watches.list().catch((e) => e);
      expect(limited).toBeInstanceOf(RateLimitError);
      expect(limited).toMatchObject({
        status: 429,
        retryAfter: 0,
        detail: "Rate limit exceeded. Try again in 0 seconds.",
      });
    } finally {
      await stub.close();
    }
  });
});

describe("a development server (SERVICE_NOAUTH=1) with a stub model", () => {
  const dev = { url: app.url };
  beforeAll(() => {
    app.setEnv({
      ...app.stubs.servicesEnv(),
      SERVICE_NOAUTH: "1",
      RATE_LIMIT_WINDOW_MS: "2000",
      RATE_LIMIT_USER_PER_MIN: "3",
    });
    // The model answers after 1 s, so a second "run now" finds the first one still open.
    app.stubs.model.delay(1000);
  });
  afterAll(() => {
    app.stubs.model.delay(0);
    app.setEnv({});
  });

  it("sends no credentials and acts as the test user; a finding arrives as a verifiable webhook", async () => {
    const authorization: (string | null)[] = [];
    const sdk = createClient({
      baseUrl: dev.url,
      noauth: true,
      apiKey: "sk_ignored",
      fetch: (input, init) => {
        const request = new Request(input, init);
        authorization.push(request.headers.get("authorization"));
        return fetch(request);
      },
    });
    expect((await sdk.me()).email).toBe("test@localhost");
    const secret = await sdk.webhookSecret.get();
    const task = await sdk
      .watch("Postgres 19 beta release")
      .when("a beta release is announced")
      .notify({ webhook: `${app.stubs.receiver.url}/hook` })
      .paused()
      .create();
    const execution = await sdk.watches.execute(task.id);
    await expect(sdk.watches.execute(task.id)).rejects.toBeInstanceOf(ConflictError);
    const sends = await waitFor("the webhook's settled send record", async () =>
      settledSends(await sdk.notifications.sends({ task_id: task.id, notification_type: "webhook" }), 1),
    );
    expect(sends.sends[0]).toMatchObject({ status: "sent", execution_id: execution.id });
    expect(await sdk.watches.findings(task.id)).toMatchObject([
      { key: "pg19-beta1", status: "notified", confirmations: 1, first_execution_id: execution.id },
    ]);
    expect(new Set(authorization)).toEqual(new Set([null]));

    const delivery = app.stubs.receiver.to("/hook").at(-1)!;
    const event = verifyWebhook<{ type: string; data: { task: { id: string } } }>(
      secret,
      delivery.headers,
      delivery.body,
    );
    expect(event).toMatchObject({ type: "task.condition_met", data: { task: { id: task.id } } });
    expect(() =>
      verifyWebhook(secret, delivery.headers, delivery.body.replace("condition_met", "condition_met ")),
    ).toThrow();
  });

  it("a real 429 waits out Retry-After; without retries it raises RateLimitError", async () => {
    const nextWindow = () => new Promise((r) => setTimeout(r, 2000 - (Date.now() % 2000) + 50));
    await nextWindow();
    const patient = createClient({ baseUrl: dev.url, noauth: true });
    for (let i = 0; i < 5; i++) await patient.watches.create({ search_query: `burst ${i}`, state: "paused" });

    // Four writes in one window of 3, however slow the machine.
    const clock = app.freezeRateLimits();
    const impatient = createClient({ baseUrl: dev.url, noauth: true, maxRetries: 0 });
    const outcomes = [];
    for (let i = 0; i < 4; i++)
      outcomes.push(
        await impatient.watches.create({ search_query: `x${i}`, state: "paused" }).then(
          () => null,
          (e) => e,
        ),
      );
    clock.release();
    const limited = outcomes.find((e) => e !== null);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.retryAfter).toBeGreaterThan(0);
    expect(limited.detail).toMatch(/^Rate limit exceeded/);
  });
});
