/** Authentication, accounts and API keys: SPEC §5, CONTRACT §3. */
import http from "node:http";
import { describe, expect, it } from "vitest";
import { call, newApiKeyUser, newUser, server, testClerkKeys, uniqueId } from "../helpers/api";
import { clerkKeys, mintSessionToken } from "../helpers/clerk";
import { startServer } from "../helpers/server";

/** A GET with a Host header of our choosing (fetch does not let a caller set one). */
function getWithHost(base: string, path: string, host: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const { hostname, port } = new URL(base);
    http
      .get({ hostname, port, path, headers: { host } }, (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, text }));
      })
      .on("error", reject);
  });
}

describe("401s", () => {
  it("uses the spec's texts", async () => {
    expect(await call("GET", "/api/v1/tasks")).toMatchObject({
      status: 401,
      body: { detail: "Authorization header missing" },
    });
    for (const key of ["sk_bad", `sk_${"A".repeat(32)}`, "not-a-token"])
      expect(await call("GET", "/api/v1/tasks", { auth: key })).toMatchObject({
        status: 401,
        body: { detail: "Invalid API key" },
      });
    const expired = await mintSessionToken(await testClerkKeys(), uniqueId(), { issuedAgo: 3600, expiresIn: 600 });
    expect(await call("GET", "/auth/me", { auth: expired })).toMatchObject({
      status: 401,
      body: { detail: "Token has expired" },
    });
    const forged = await mintSessionToken(await clerkKeys(), uniqueId());
    expect((await call("GET", "/auth/me", { auth: forged })).status).toBe(401);
    expect((await call("GET", "/auth/me", { headers: { authorization: "Basic eDp5" } })).status).toBe(401);
  });
});

describe("accounts", () => {
  it("syncs from Clerk, then refreshes", async () => {
    const clerkId = uniqueId("user_dev");
    const token = await mintSessionToken(await testClerkKeys(), clerkId);
    const first = await call("POST", "/auth/sync-user", { auth: token });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      created: true,
      user: {
        clerk_user_id: clerkId,
        email: `${clerkId}@example.com`,
        first_name: `First ${clerkId}`,
        username: null,
        is_active: true,
        has_seen_welcome: false,
      },
    });
    const second = await call("POST", "/auth/sync-user", { auth: token });
    expect(second.body).toMatchObject({ created: false, user: { id: first.body.user.id } });
    expect((await call("GET", "/auth/me", { auth: token })).body.id).toBe(first.body.user.id);
    expect(await call("POST", "/auth/mark-welcome-seen", { auth: token })).toMatchObject({
      status: 200,
      body: { status: "success" },
    });
    expect((await call("GET", "/auth/me", { auth: token })).body.has_seen_welcome).toBe(true);
  });

  it("needs a synced user, a dashboard session for sync, and a Clerk user that exists", async () => {
    const token = await mintSessionToken(await testClerkKeys(), uniqueId());
    const unsynced = await call("GET", "/api/v1/tasks", { auth: token });
    expect(unsynced.status).toBe(404);
    expect(unsynced.body.detail).toMatch(/sync-user/);
    expect((await call("POST", "/auth/api-keys", { auth: token, body: { name: "k" } })).status).toBe(404);
    const keyUser = await newApiKeyUser();
    expect((await call("POST", "/auth/sync-user", { auth: keyUser.apiKey })).status).toBe(403);
    const gone = await mintSessionToken(await testClerkKeys(), uniqueId("user_gone"));
    expect((await call("POST", "/auth/sync-user", { auth: gone })).status).toBe(404);
  });

  it("sets a username once, with the contract's rules", async () => {
    const u = await newUser();
    const name = `Name${Date.now().toString(36)}`;
    const avail = await call("GET", `/api/v1/users/username/available?username=${name}`, { auth: u.token });
    expect(avail.body).toEqual({ available: true, reason: null });
    for (const bad of ["ab", "1abc", "has space", "admin", "x".repeat(31)]) {
      const r = await call("PATCH", "/api/v1/users/me/username", { auth: u.token, body: { username: bad } });
      expect(r.status, bad).toBe(400);
      expect(r.body.detail).toMatch(/^Invalid username: /);
    }
    const set = await call("PATCH", "/api/v1/users/me/username", { auth: u.token, body: { username: name } });
    expect(set).toMatchObject({ status: 200, body: { username: name.toLowerCase() } });
    expect(
      (await call("PATCH", "/api/v1/users/me/username", { auth: u.token, body: { username: name.toLowerCase() } }))
        .status,
    ).toBe(200);
    expect(
      await call("PATCH", "/api/v1/users/me/username", { auth: u.token, body: { username: "another" } }),
    ).toMatchObject({
      status: 400,
      body: { detail: "Username cannot be changed once set. This protects your public task URLs from breaking." },
    });
    const other = await newUser();
    expect(
      await call("PATCH", "/api/v1/users/me/username", { auth: other.token, body: { username: name } }),
    ).toMatchObject({
      status: 409,
      body: { detail: "Username already taken" },
    });
    expect(
      (await call("GET", `/api/v1/users/username/available?username=${name}`, { auth: other.token })).body,
    ).toEqual({
      available: false,
      reason: "Username already taken",
    });
  });

  it("creates the webhook secret once and rotates it", async () => {
    const u = await newUser();
    const a = await call("GET", "/api/v1/webhooks/secret", { auth: u.token });
    expect(a.body.secret).toMatch(/^whsec_/);
    expect((await call("GET", "/api/v1/webhooks/secret", { auth: u.token })).body.secret).toBe(a.body.secret);
    const rotated = await call("POST", "/api/v1/webhooks/secret/rotate", { auth: u.token });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(a.body.secret);
  });
});

describe("API keys", () => {
  it(
    "a flood of made-up keys sharing a real key's lookup id ends in 429s, health keeps answering, and the real key keeps working (timings: npm run bench:key-flood)",
    { timeout: 120_000 },
    async () => {
      // An hour-long window, so that the failure budget is not reset mid-flood.
      const s = await startServer({ SERVICE_NOAUTH: "1", RATE_LIMIT_WINDOW_MS: "3600000" });
      try {
        const { key } = (await call("POST", "/auth/api-keys", { base: s.url, body: { name: "k" } })).body;
        const me = (k: string) => call("GET", "/auth/me", { base: s.url, auth: k });
        expect((await me(key)).status).toBe(200);
        const letters = "abcdefghijklmnopqrstuvwxyz";
        const madeUp = () =>
          key.slice(0, 11) + Array.from({ length: 24 }, () => letters[Math.floor(Math.random() * 26)]).join("");

        const health = () => call("GET", "/api/health", { base: s.url });
        await health();
        let flooding = true;
        const probe = (async () => {
          while (flooding) {
            expect((await health()).status).toBe(200);
            await new Promise((r) => setTimeout(r, 5));
          }
        })();
        const statuses: number[] = [];
        for (let wave = 0; wave < 40; wave++) {
          statuses.push(...(await Promise.all(Array.from({ length: 5 }, () => me(madeUp()).then((r) => r.status)))));
          expect((await me(key)).status, `the real key after wave ${wave}`).toBe(200);
          await new Promise((r) => setTimeout(r, 20));
        }
        flooding = false;
        await probe;

        expect(statuses.filter((st) => st === 401)).toHaveLength(20);
        expect(statuses.slice(20)).toEqual(Array(180).fill(429));
        const refused = await me(madeUp());
        expect(refused.status).toBe(429);
        expect(refused.body.detail).toMatch(/^Rate limit exceeded\. Try again in \d+ seconds\.$/);
        for (const h of ["retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
          expect(refused.headers.get(h), h).not.toBeNull();
        expect((await me(key)).status).toBe(200);
      } finally {
        await s.stop();
      }
    },
  );

  it("needs the developer or admin role", async () => {
    const plain = await newUser();
    expect((await call("POST", "/auth/api-keys", { auth: plain.token, body: { name: "k" } })).status).toBe(403);
    const admin = await newUser("admin");
    expect((await call("POST", "/auth/api-keys", { auth: admin.token, body: { name: "k" } })).status).toBe(200);
  });

  it("shows the key once, allows one active key, revokes at once", async () => {
    const u = await newUser("developer");
    const created = await call("POST", "/auth/api-keys", { auth: u.token, body: { name: "laptop" } });
    expect(created.status).toBe(200);
    const { key, key_info } = created.body;
    expect(key).toMatch(/^sk_[A-Za-z0-9]{32}$/);
    expect(key_info).toMatchObject({ name: "laptop", is_active: true, last_used_at: null, user_id: u.id });
    expect(key_info.key_prefix.endsWith("...")).toBe(true);
    expect(key.startsWith(key_info.key_prefix.slice(0, -3))).toBe(true);
    expect((await call("POST", "/auth/api-keys", { auth: u.token, body: { name: "second" } })).status).toBe(400);

    expect((await call("GET", "/auth/me", { auth: key })).body.id).toBe(u.id);
    const listed = await call("GET", "/auth/api-keys", { auth: key });
    expect(listed.text).not.toContain(key);
    expect(listed.body[0].last_used_at).not.toBeNull();

    const other = await newUser("developer");
    expect((await call("DELETE", `/auth/api-keys/${key_info.id}`, { auth: other.token })).status).toBe(404);
    expect((await call("DELETE", "/auth/api-keys/nope", { auth: u.token })).status).toBe(422);
    expect(await call("DELETE", `/auth/api-keys/${key_info.id}`, { auth: u.token })).toMatchObject({
      status: 200,
      body: { status: "revoked" },
    });
    expect(await call("GET", "/auth/me", { auth: key })).toMatchObject({
      status: 401,
      body: { detail: "Invalid API key" },
    });
    expect((await call("POST", "/auth/api-keys", { auth: u.token, body: { name: "new" } })).status).toBe(200);
  });
});

describe("server modes", () => {
  it("SERVICE_NOAUTH=1: loopback requests without credentials act as the test user", async () => {
    const s = await startServer({ SERVICE_NOAUTH: "1" });
    try {
      expect(s.output()).toMatch(/SERVICE_NOAUTH=1/);
      const me = await call("GET", "/auth/me", { base: s.url });
      expect(me.body).toMatchObject({
        id: "00000000-0000-0000-0000-000000000001",
        clerk_user_id: "user_noauth",
        email: "test@localhost",
      });
      expect((await call("POST", "/api/v1/tasks", { base: s.url, body: { search_query: "x" } })).status).toBe(200);
      expect((await call("POST", "/auth/api-keys", { base: s.url, body: { name: "k" } })).status).toBe(200);
      expect((await call("GET", "/auth/me", { base: s.url, auth: "sk_bad" })).status).toBe(401);
      const spoofed = await call("GET", "/auth/me", {
        base: s.url,
        headers: { "x-forwarded-for": "1.2.3.4", "x-watch-client-ip": "8.8.8.8" },
      });
      expect(spoofed.status).toBe(200);

      // DNS rebinding: a page on another name that resolves here must not borrow the mode.
      const rebound = await getWithHost(s.url, "/api/v1/webhooks/secret", "evil.example");
      expect(rebound.status).toBe(421);
      expect(JSON.parse(rebound.text).detail).toMatch(/SERVICE_NOAUTH/);
      expect((await getWithHost(s.url, "/dashboard", `evil.example:${s.port}`)).status).toBe(421);
      for (const host of [`localhost:${s.port}`, `127.0.0.1:${s.port}`, `app.localhost:${s.port}`, `[::1]:${s.port}`])
        expect((await getWithHost(s.url, "/api/v1/webhooks/secret", host)).text, host).toContain("whsec_");

      // Cross-site browser writes: a "simple" POST any page can send, and Fetch Metadata's verdict.
      const count = async () => (await call("GET", "/api/v1/tasks", { base: s.url })).body.length;
      const before = await count();
      const csrf = await call("POST", "/api/v1/tasks?search_query=x", {
        base: s.url,
        rawBody: "x",
        headers: { "content-type": "text/plain", origin: "https://evil.example" },
      });
      expect(csrf.status).toBe(403);
      expect(csrf.body.detail).toMatch(/^Cross-site request refused/);
      for (const site of ["cross-site", "same-site"]) {
        const r = await call("POST", "/api/v1/tasks", {
          base: s.url,
          body: { search_query: "x" },
          headers: { "sec-fetch-site": site },
        });
        expect(r.status, site).toBe(403);
      }
      expect(
        (
          await call("DELETE", "/api/v1/tasks/00000000-0000-0000-0000-000000000000", {
            base: s.url,
            headers: { origin: "null" },
          })
        ).status,
      ).toBe(403);
      expect(await count()).toBe(before);
      // The server's own pages, the address bar, and clients that are not browsers (no Origin, no Sec-Fetch-Site).
      for (const headers of <Record<string, string>[]>[
        { origin: s.url },
        { "sec-fetch-site": "same-origin", origin: s.url },
        { "sec-fetch-site": "none" },
        {},
      ])
        expect(
          (await call("POST", "/api/v1/tasks", { base: s.url, body: { search_query: "x" }, headers })).status,
          JSON.stringify(headers),
        ).toBe(200);
      expect(
        (await call("GET", "/api/v1/tasks", { base: s.url, headers: { "sec-fetch-site": "cross-site" } })).status,
      ).toBe(200);
      // Session tokens without a Clerk secret configured: the service still runs, JWTs get 503.
      const jwt = await mintSessionToken(await testClerkKeys(), uniqueId());
      expect(await call("GET", "/auth/me", { base: s.url, auth: jwt })).toMatchObject({
        status: 503,
        body: { detail: "Clerk client not initialized" },
      });
    } finally {
      await s.stop();
    }
  });

  it("without the flag, loopback requests need credentials", async () => {
    expect((await call("GET", "/auth/me", { base: server().url })).status).toBe(401);
  });

  it("TRUST_PROXY=1: the client is the rightmost X-Forwarded-For entry; entries left of it and x-watch-client-ip change nothing", async () => {
    const s = await startServer({ TRUST_PROXY: "1" });
    try {
      let n = 0;
      const join = (forwardedFor: string) =>
        call("POST", "/api/v1/public/waitlist", {
          base: s.url,
          body: { email: `xff${n}@example.com` },
          headers: { "x-forwarded-for": forwardedFor, "x-watch-client-ip": `10.9.9.${n++}` },
        }).then((r) => r.status);
      const forged = [];
      for (let i = 0; i < 6; i++) forged.push(await join(`198.51.100.${i}, 203.0.113.7`));
      expect(forged).toEqual([200, 200, 200, 200, 200, 429]);
      expect(await join("203.0.113.7")).toBe(429);
      expect(await join("203.0.113.7, 203.0.113.8")).toBe(200);
    } finally {
      await s.stop();
    }
    await expect(startServer({ TRUST_PROXY: "10.0.0.0/33" })).rejects.toThrow(
      /TRUST_PROXY: '10\.0\.0\.0\/33' is not an IP address or CIDR range/,
    );
  });
});
