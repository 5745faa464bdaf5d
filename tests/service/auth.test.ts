/** Authentication, accounts and API keys: the 401 texts, account sync from Clerk, usernames, webhook secrets, keys. */
import { describe, expect, it } from "vitest";
import { clerkKeys, mintSessionToken } from "../helpers/clerk";
import { uniqueId } from "../helpers/client";
import { withService } from "../helpers/service";

const app = withService();
const { call, newApiKeyUser, newUser } = app;
const testClerkKeys = async () => app.stubs.clerk.keys;

describe("401s", () => {
  it("says why: no header, an invalid key, an expired token", async () => {
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

  it("sets a username once: 3 to 30 letters, digits, _ or -, from a letter, not reserved, unique", async () => {
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

describe("SERVICE_NOAUTH=1", () => {
  it("loopback requests without credentials act as the test user; credentials given are checked; session tokens without a Clerk secret get 503", async () => {
    app.setEnv({ SERVICE_NOAUTH: "1", CLERK_SECRET_KEY: undefined });
    try {
      const me = await call("GET", "/auth/me");
      expect(me.body).toMatchObject({
        id: "00000000-0000-0000-0000-000000000001",
        clerk_user_id: "user_noauth",
        email: "test@localhost",
      });
      expect((await call("POST", "/api/v1/tasks", { body: { search_query: "x" } })).status).toBe(200);
      expect((await call("POST", "/auth/api-keys", { body: { name: "k" } })).status).toBe(200);
      expect((await call("GET", "/auth/me", { auth: "sk_bad" })).status).toBe(401);
      // Not from this machine: credentials needed.
      expect((await app.from("203.0.113.9")("GET", "/auth/me")).status).toBe(401);
      // Session tokens without a Clerk secret configured: the service still runs, JWTs get 503.
      const jwt = await mintSessionToken(await testClerkKeys(), uniqueId());
      expect(await call("GET", "/auth/me", { auth: jwt })).toMatchObject({
        status: 503,
        body: { detail: "Clerk client not initialized" },
      });
    } finally {
      app.setEnv({});
    }
    expect((await call("GET", "/auth/me")).status).toBe(401);
  });
});
