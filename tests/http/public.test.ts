/** The public surface: directory, RSS, waitlist, pages (server-rendered), and per-IP / per-user rate limits. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, createTask, newUser, server, uniqueId } from "../helpers/api";
import { startServer, type RunningServer } from "../helpers/server";

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

describe("pages", () => {
  it("render server-side with the watch's content, meta tags and RSS link; private watches are 404", async () => {
    const username = `pg${Date.now().toString(36)}`;
    const owner = await newUser(undefined, { username });
    const t = await createTask(owner.token, {
      name: "Server rendered watch",
      condition_description: "it renders <b>safely</b>",
    });
    const base = server().url;
    expect((await fetch(`${base}/w/${t.id}`)).status).toBe(404);
    await call("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    const html = await (await fetch(`${base}/w/${t.id}`)).text();
    expect(html).toContain("Server rendered watch");
    expect(html).toContain("it renders &lt;b&gt;safely&lt;/b&gt;");
    expect(html).toContain('property="og:title"');
    expect(html).toMatch(/<link rel="alternate" type="application\/rss\+xml"/);
    expect(html).not.toContain("noindex");
    const explore = await (await fetch(`${base}/explore?q=Server+rendered`)).text();
    expect(explore).toContain("Server rendered watch");
    const user = await (await fetch(`${base}/u/${username}`)).text();
    expect(user).toContain("Server rendered watch");
    const landing = await (await fetch(`${base}/`)).text();
    expect(landing).toContain('href="/sign-up"'); // sign-ups are open unless SIGNUPS=waitlist (tests/http/pages.test.ts)
    expect(landing).not.toContain('action="/waitlist"');

    // Signed in (Clerk session cookie), the owner's own page views are not counted; anyone else's are,
    // and signed-in visitors get a Fork button.
    const views = async () =>
      (await call("GET", `/api/v1/public/tasks/id/${t.id}`, { auth: owner.token })).body.view_count as number;
    const before = await views();
    const ownerView = await (
      await fetch(`${base}/w/${t.id}`, { headers: { cookie: `__session=${owner.token}` } })
    ).text();
    expect(await views()).toBe(before);
    expect(ownerView).toContain(">Fork</button>");
    expect(html).toContain("Sign in to fork");
    await fetch(`${base}/w/${t.id}`);
    expect(await views()).toBe(before + 1);
  });
});

describe("rate limits", () => {
  let limited: RunningServer;
  beforeAll(async () => {
    limited = await startServer({ SERVICE_NOAUTH: "1", RATE_LIMIT_WINDOW_MS: "4000", RATE_LIMIT_USER_PER_MIN: "5" });
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it("answers 429 right after the count with the contract's headers, ignores spoofed X-Forwarded-For, resets after the window", async () => {
    const get = (headers: Record<string, string> = {}) =>
      call("GET", "/api/v1/public/tasks", { base: limited.url, headers });
    // Start at the beginning of a window so all requests fall in it.
    await new Promise((r) => setTimeout(r, 4000 - (Date.now() % 4000) + 50));
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
    expect((await call("GET", "/api/health", { base: limited.url })).status).toBe(200);
    await new Promise((r) => setTimeout(r, Number(refused.headers.get("retry-after")) * 1000 + 100));
    expect((await get()).status).toBe(200);
  });

  it("limits authenticated writes per user", async () => {
    await new Promise((r) => setTimeout(r, 4000 - (Date.now() % 4000) + 50));
    const statuses = [];
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await call("POST", "/api/v1/tasks", { base: limited.url, body: { search_query: `w${i}` } })).status,
      );
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await call("GET", "/api/v1/tasks", { base: limited.url })).status).toBe(200); // reads are not limited
  });

  it("every other bucket answers 429 exactly after its count; pages share their API twin's bucket", async () => {
    const nextWindow = () => new Promise((r) => setTimeout(r, 4000 - (Date.now() % 4000) + 50));
    await nextWindow();
    const task = (
      await call("POST", "/api/v1/tasks", { base: limited.url, body: { search_query: "limits", state: "paused" } })
    ).body;
    const username = `lim${Date.now().toString(36)}`;
    await call("PATCH", "/api/v1/users/me/username", { base: limited.url, body: { username } });
    expect(
      (await call("PATCH", `/api/v1/tasks/${task.id}/visibility`, { base: limited.url, body: { is_public: true } }))
        .status,
    ).toBe(200);
    await nextWindow();

    const statuses = async (n: number, request: (i: number) => Promise<{ status: number }>) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push((await request(i)).status);
      return out;
    };
    const byId = () => call("GET", `/api/v1/public/tasks/id/${task.id}`, { base: limited.url });
    // A visitor other than the owner (the NOAUTH test user): their page views count.
    const page = () =>
      fetch(`${limited.url}/w/${task.id}`, { headers: { authorization: `Bearer sk_${"v".repeat(32)}` } });
    // 19 API reads + 1 page view use up the 20 of the public-by-id bucket.
    expect(await statuses(19, byId)).toEqual(Array(19).fill(200));
    expect((await page()).status).toBe(200);
    expect((await byId()).status).toBe(429);
    const views = async () => (await call("GET", `/api/v1/tasks/${task.id}`, { base: limited.url })).body.view_count;
    const counted = await views();
    expect(await (await page()).text()).toContain("Too many requests");
    expect(await views()).toBe(counted); // a refused page view is not counted

    // A user's page lists public watches: it shares the directory's bucket.
    const userPage = () => fetch(`${limited.url}/u/${username}`);
    expect(await statuses(10, userPage)).toEqual(Array(10).fill(200));
    expect(await (await userPage()).text()).toContain("Too many requests");

    const rss = () => fetch(`${limited.url}/api/v1/public/tasks/id/${task.id}/rss`);
    expect(await statuses(11, rss)).toEqual([...Array(10).fill(200), 429]);

    const join = (i: number) =>
      call("POST", "/api/v1/public/waitlist", {
        base: limited.url,
        body: { email: `lim${Date.now()}${i}@example.com` },
      });
    expect(await statuses(6, join)).toEqual([...Array(5).fill(200), 429]);

    // One active key at a time: the 2nd and 3rd attempts are refused by the domain, the 4th by the limit.
    const createKey = () => call("POST", "/auth/api-keys", { base: limited.url, body: { name: "k" } });
    expect(await statuses(4, createKey)).toEqual([200, 400, 400, 429]);
  });

  it("RSS and JSON Feed share one bucket of 10; the badge and the Open Graph image one of 60, where a 304 counts too", async () => {
    const nextWindow = () => new Promise((r) => setTimeout(r, 4000 - (Date.now() % 4000) + 50));
    await nextWindow();
    await call("PATCH", "/api/v1/users/me/username", {
      base: limited.url,
      body: { username: `shl${Date.now().toString(36)}` },
    }); // unless set already
    const task = (
      await call("POST", "/api/v1/tasks", {
        base: limited.url,
        body: { search_query: "shared limits", state: "paused" },
      })
    ).body;
    expect(
      (await call("PATCH", `/api/v1/tasks/${task.id}/visibility`, { base: limited.url, body: { is_public: true } }))
        .status,
    ).toBe(200);
    const url = (suffix: string) => `${limited.url}/api/v1/public/tasks/id/${task.id}/${suffix}`;
    await fetch(`${limited.url}/w/${task.id}/opengraph-image`); // the first image warms the renderer up, outside the window below
    const statuses = async (n: number, request: () => Promise<Response>) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push((await request()).status);
      return out;
    };

    await nextWindow();
    expect(await statuses(5, () => fetch(url("rss")))).toEqual(Array(5).fill(200));
    expect(await statuses(6, () => fetch(url("feed.json")))).toEqual([...Array(5).fill(200), 429]);
    expect((await fetch(url("rss"))).status).toBe(429);

    await nextWindow();
    const etag = (await fetch(url("badge.svg"))).headers.get("etag")!;
    expect(await statuses(57, () => fetch(url("badge.svg"), { headers: { "if-none-match": etag } }))).toEqual(
      Array(57).fill(304),
    );
    expect((await fetch(`${limited.url}/w/${task.id}/opengraph-image`)).status).toBe(200);
    expect((await fetch(url("badge.svg"))).status).toBe(200);
    const refused = await fetch(url("badge.svg"), { headers: { "if-none-match": etag } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("60");
    expect((await fetch(`${limited.url}/w/${task.id}/opengraph-image`)).status).toBe(429);
  });
});
