/**
 * The public surface through the API: the directory, RSS, the waitlist, and the rate limits per client address and
 * per user (on a clock of the test's own, so that a slow machine cannot split a count across two windows). The pages,
 * and the buckets they share with their API twins, are tested on a real server (tests/http/pages.test.ts).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { uniqueId } from "../helpers/client";
import { withService } from "../helpers/service";

const app = withService();
const { call, createTask, newUser } = app;

describe("public directory", () => {
  it("lists public watches only, scrubbed, with search, sort, paging and X-Total-Count", async () => {
    const word = uniqueId("zq");
    const owner = await newUser(undefined, { username: `dir${Date.now().toString(36)}` });
    const a = await createTask(owner.token, {
      name: `alpha ${word}`,
      notifications: [{ type: "email", address: "o@example.com" }],
    });
    const b = await createTask(owner.token, { name: "beta", condition_description: `cond ${word}` });
    await createTask(owner.token, { name: `private ${word}` });
    for (const t of [a, b])
      await call("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    const fan = await newUser();
    await call("POST", `/api/v1/tasks/${b.id}/fork`, { auth: fan.token });

    const r = await call("GET", `/api/v1/public/tasks?q=${word.toUpperCase()}`, {
      headers: { "x-forwarded-for": "10.9.9.1" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-total-count")).toBe("2");
    expect(r.body.map((t: any) => t.id).sort()).toEqual([a.id, b.id].sort());
    for (const t of r.body) {
      expect(t).toMatchObject({
        user_id: null,
        notifications: [],
        notification_email: null,
        webhook_url: null,
        last_known_state: null,
      });
      expect(JSON.stringify(t)).not.toContain("o@example.com");
    }
    const popular = await call("GET", `/api/v1/public/tasks?q=${word}&sort=popular&limit=1`);
    expect(popular.body.map((t: any) => t.id)).toEqual([b.id]);
    const second = await call("GET", `/api/v1/public/tasks?q=${word}&sort=popular&limit=1&offset=1`);
    expect(second.body.map((t: any) => t.id)).toEqual([a.id]);
    expect((await call("GET", "/api/v1/public/tasks?sort=best")).status).toBe(422);
  });
});

describe("RSS", () => {
  it("serves RSS 2.0 for public watches and 404 for private ones", async () => {
    const owner = await newUser(undefined, { username: `rss${Date.now().toString(36)}` });
    const t = await createTask(owner.token, { name: "Feed me" });
    expect((await call("GET", `/api/v1/public/tasks/id/${t.id}/rss`)).status).toBe(404);
    await call("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    const r = await call("GET", `/api/v1/public/tasks/id/${t.id}/rss`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("application/rss+xml");
    expect(r.text).toContain('<rss version="2.0"');
    expect(r.text).toContain("<title>Watch: Feed me</title>");
    expect(r.text).toMatch(/atom:link[^>]+rel="self"/);
    expect((await call("GET", "/api/v1/public/tasks/id/nope/rss")).status).toBe(422);
  });
});

describe("waitlist", () => {
  it("gives dense positions, refuses duplicates case-insensitively, validates the email", async () => {
    const e1 = `${uniqueId("w")}@example.com`;
    const e2 = `${uniqueId("w")}@example.com`;
    const [r1, r2] = await Promise.all([
      call("POST", "/api/v1/public/waitlist", { body: { email: e1 } }),
      call("POST", "/api/v1/public/waitlist", { body: { email: e2 } }),
    ]);
    expect([r1.status, r2.status]).toEqual([200, 200]);
    expect(Math.abs(r1.body.position - r2.body.position)).toBe(1);
    expect(r1.body.message).toBeTruthy();
    const dup = await call("POST", "/api/v1/public/waitlist", { body: { email: e1.toUpperCase() } });
    expect(dup).toMatchObject({ status: 409, body: { detail: "Email already on waitlist" } });
    expect((await call("POST", "/api/v1/public/waitlist", { body: { email: "nope" } })).status).toBe(422);
    const admin = await newUser("admin");
    const list = await call("GET", "/api/v1/admin/waitlist", { auth: admin.token });
    expect(list.body.map((x: any) => x.email)).toEqual(expect.arrayContaining([e1, e2]));
    expect((await call("GET", "/api/v1/admin/waitlist", { auth: (await newUser()).token })).status).toBe(403);
  });
});

describe("rate limits", () => {
  // The NOAUTH test user (no credentials from this machine), with a write limit of 5 a window.
  beforeAll(() => app.setEnv({ SERVICE_NOAUTH: "1", RATE_LIMIT_USER_PER_MIN: "5" }));
  afterAll(() => app.setEnv({}));
  let clock: ReturnType<typeof app.freezeRateLimits>;
  beforeEach(() => void (clock = app.freezeRateLimits()));
  afterEach(() => clock.release());

  const statuses = async (n: number, request: (i: number) => Promise<{ status: number }>) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push((await request(i)).status);
    return out;
  };

  async function publicWatch(query: string) {
    await call("PATCH", "/api/v1/users/me/username", { body: { username: `lim${Date.now().toString(36)}` } }); // unless set already
    const task = await createTask(undefined, { search_query: query, state: "paused" });
    expect((await call("PATCH", `/api/v1/tasks/${task.id}/visibility`, { body: { is_public: true } })).status).toBe(
      200,
    );
    clock.nextWindow();
    return task.id as string;
  }

  it("answers 429 right after the count with the headers that say so, ignores X-Forwarded-For without TRUST_PROXY, resets after the window", async () => {
    const get = (headers: Record<string, string> = {}) => call("GET", "/api/v1/public/tasks", { headers });
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await get({ "x-forwarded-for": `203.0.113.${i}` }));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers[0]!.headers.get("x-ratelimit-limit")).toBe("10");
    expect(answers[9]!.headers.get("x-ratelimit-remaining")).toBe("0");
    const refused = await get({ "x-forwarded-for": "198.51.100.7" });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/^Rate limit exceeded\. Try again in \d+ seconds\.$/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("x-ratelimit-reset")).toBeTruthy();
    expect((await call("GET", "/api/health")).status).toBe(200);
    clock.nextWindow();
    expect((await get()).status).toBe(200);
  });

  it("limits authenticated writes per user", async () => {
    expect(await statuses(6, (i) => call("POST", "/api/v1/tasks", { body: { search_query: `w${i}` } }))).toEqual([
      200, 200, 200, 200, 200, 429,
    ]);
    expect((await call("GET", "/api/v1/tasks")).status).toBe(200); // reads count in a bucket of their own
  });

  it("every other bucket answers 429 exactly after its count", async () => {
    const id = await publicWatch("limits");
    const visitor = app.from("203.0.113.50");
    expect(await statuses(21, () => visitor("GET", `/api/v1/public/tasks/id/${id}`))).toEqual([
      ...Array(20).fill(200),
      429,
    ]);
    expect(await statuses(11, () => visitor("GET", `/api/v1/public/tasks/id/${id}/rss`))).toEqual([
      ...Array(10).fill(200),
      429,
    ]);
    const join = (i: number) =>
      visitor("POST", "/api/v1/public/waitlist", { body: { email: `lim${Date.now()}${i}@example.com` } });
    expect(await statuses(6, join)).toEqual([...Array(5).fill(200), 429]);
    // One active key at a time: the 2nd and 3rd attempts are refused by the domain, the 4th by the limit.
    const createKey = () => call("POST", "/auth/api-keys", { body: { name: "k" } });
    expect(await statuses(4, createKey)).toEqual([200, 400, 400, 429]);
  });

  it("RSS and JSON Feed share one bucket of 10; the badge one of 60, where a 304 counts too", async () => {
    const id = await publicWatch("shared limits");
    const visitor = app.from("203.0.113.51");
    const url = (suffix: string) => `/api/v1/public/tasks/id/${id}/${suffix}`;
    expect(await statuses(5, () => visitor("GET", url("rss")))).toEqual(Array(5).fill(200));
    expect(await statuses(6, () => visitor("GET", url("feed.json")))).toEqual([...Array(5).fill(200), 429]);
    expect((await visitor("GET", url("rss"))).status).toBe(429);

    clock.nextWindow();
    const etag = (await visitor("GET", url("badge.svg"))).headers.get("etag")!;
    const revalidate = () => visitor("GET", url("badge.svg"), { headers: { "if-none-match": etag } });
    expect(await statuses(58, revalidate)).toEqual(Array(58).fill(304));
    expect((await visitor("GET", url("badge.svg"))).status).toBe(200);
    const refused = await revalidate();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("60");
  });
});
