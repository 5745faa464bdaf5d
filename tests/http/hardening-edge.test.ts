/**
 * Hardening at the edges, on a server of its own (a trusted proxy in front, Clerk's webhooks on, short request
 * timeouts): per-IP limits group IPv6 clients by /64, slow clients are cut off with a 408, Clerk's webhooks are applied
 * once per id and never older over newer, and `subscriber_count` counts each follower or fork holder once, for as long
 * as they follow or hold the fork.
 */
import net from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnv } from "../global-setup";
import { call, server, testClerkKeys, uniqueId } from "../helpers/api";
import { mintSessionToken } from "../helpers/clerk";
import { startServer, type RunningServer } from "../helpers/server";

const WEBHOOK_SECRET = `whsec_${Buffer.from("clerk-webhook-hardening-secret-0123").toString("base64")}`;
const HEADERS_TIMEOUT_MS = 1000;
const BODY_TIMEOUT_MS = 2500;
let own: RunningServer;

beforeAll(async () => {
  own = await startServer({
    ...serverEnv(server().clerkPublicPem, server().stubs.clerk),
    TRUST_PROXY: "1",
    // An hour-long window: the twelve requests counted below must not straddle two windows on a busy machine.
    RATE_LIMIT_WINDOW_MS: "3600000",
    CLERK_WEBHOOK_SECRET: WEBHOOK_SECRET,
    REQUEST_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    REQUEST_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
  });
});

afterAll(async () => {
  await own?.stop();
});

type Opts = { auth?: string; body?: unknown; headers?: Record<string, string> };
const api = (method: string, path: string, opts: Opts = {}) => call(method, path, { base: own.url, ...opts });

async function signIn(opts: { username?: string } = {}) {
  const clerkId = uniqueId("user_dev");
  const token = await mintSessionToken(await testClerkKeys(), clerkId);
  const synced = await api("POST", "/auth/sync-user", { auth: token });
  expect(synced.status).toBe(200);
  if (opts.username)
    expect((await api("PATCH", "/api/v1/users/me/username", { auth: token, body: opts })).status).toBe(200);
  return { clerkId, token, id: synced.body.user.id as string };
}

describe("per-IP limits", () => {
  it("count an IPv6 /64 as one client", async () => {
    const list = (ip: string) =>
      api("GET", "/api/v1/public/tasks?limit=1", { headers: { "x-forwarded-for": ip } }).then((r) => r.status);
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) statuses.push(await list(`2001:db8:7:1:${i.toString(16)}::${i}`));
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect(await list("2001:db8:7:2::1")).toBe(200); // the next /64 is someone else
    expect(await list("203.0.113.9")).toBe(200);
  });
});

/** Writes `chunks` to a raw connection, one per `everyMs`; resolves with what the server answered and when it closed. */
function dribble(chunks: string[], everyMs: number) {
  return new Promise<{ answer: string; afterMs: number }>((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(own.port, "127.0.0.1");
    let answer = "";
    let i = 0;
    const timer = setInterval(() => {
      if (i < chunks.length && !socket.destroyed) socket.write(chunks[i++]!);
    }, everyMs);
    socket.on("data", (d) => (answer += d));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ answer, afterMs: Date.now() - started });
    });
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`still open after 15 s; got: ${answer}`));
    }, 15_000);
  });
}

describe("slow clients", () => {
  it("headers not complete in time: 408 and the connection closed", { timeout: 20_000 }, async () => {
    const head = "GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ";
    const { answer, afterMs } = await dribble([...head, ..."a".repeat(200)], 50);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
  });

  it("a body dribbled a byte at a time: 408 once the body's time is up, and closed", { timeout: 20_000 }, async () => {
    const body = JSON.stringify({ email: "slow@example.com" });
    const head =
      "POST /api/v1/public/waitlist HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
      `Content-Length: ${body.length}\r\n\r\n`;
    const { answer, afterMs } = await dribble([head, ...body], 400);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
    expect(afterMs).toBeLessThan(body.length * 400);
  });

  it("a client that keeps up is served as usual", async () => {
    expect((await api("GET", "/api/health")).status).toBe(200);
  });
});

function clerkEvent(type: string, data: Record<string, unknown>, id = `msg_${uniqueId()}`) {
  const body = JSON.stringify({ type, object: "event", data, timestamp: Date.now(), instance_id: "ins_test" });
  // One instant for the signature and its header: two reads of the clock can straddle a second.
  const at = new Date();
  const signature = new Webhook(WEBHOOK_SECRET).sign(id, at, body);
  return fetch(`${own.url}/api/webhooks/clerk`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "svix-id": id,
      "svix-timestamp": String(Math.floor(at.getTime() / 1000)),
      "svix-signature": signature,
    },
    body,
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
}

describe("Clerk webhooks", () => {
  const profile = (clerkId: string, at: number, banned: boolean) => ({
    id: clerkId,
    first_name: banned ? "Banned" : "Fine",
    email_addresses: [{ id: "e1", email_address: `${clerkId}@example.com` }],
    primary_email_address_id: "e1",
    public_metadata: { role: "developer" },
    banned,
    updated_at: at,
  });

  it("a late, older event never undoes a newer one (a ban stays)", async () => {
    const user = await signIn();
    const key = (await api("POST", "/auth/api-keys", { auth: user.token, body: { name: "k" } })).body.key;
    expect((await api("GET", "/auth/me", { auth: key })).status).toBe(200);
    const t0 = Date.now();
    expect((await clerkEvent("user.updated", profile(user.clerkId, t0 + 2000, true))).body).toEqual({
      status: "updated",
    });
    expect((await api("GET", "/auth/me", { auth: key })).status).toBe(401);
    // Clerk retried an earlier "not banned" event and it arrives now.
    expect((await clerkEvent("user.updated", profile(user.clerkId, t0 + 1000, false))).body).toEqual({
      status: "stale",
    });
    expect((await api("GET", "/auth/me", { auth: key })).body).toEqual({ detail: "Invalid API key" });
    // A genuinely newer one applies.
    expect((await clerkEvent("user.updated", profile(user.clerkId, t0 + 3000, false))).body).toEqual({
      status: "updated",
    });
    expect((await api("GET", "/auth/me", { auth: key })).body).toMatchObject({ first_name: "Fine", is_active: true });
  });

  it("each svix-id is applied once: a replay changes nothing", async () => {
    const user = await signIn();
    const key = (await api("POST", "/auth/api-keys", { auth: user.token, body: { name: "k" } })).body.key;
    const t0 = Date.now();
    const banId = `msg_${uniqueId()}`;
    expect((await clerkEvent("user.updated", profile(user.clerkId, t0 + 1000, true), banId)).body.status).toBe(
      "updated",
    );
    expect((await clerkEvent("user.updated", profile(user.clerkId, t0 + 2000, false))).body.status).toBe("updated");
    expect((await api("GET", "/auth/me", { auth: key })).status).toBe(200);
    // The ban's delivery again (same id; Svix retries and replays keep it).
    expect((await clerkEvent("user.updated", profile(user.clerkId, t0 + 1000, true), banId)).body).toEqual({
      status: "duplicate",
    });
    expect((await api("GET", "/auth/me", { auth: key })).status).toBe(200);
  });
});

describe("subscriber_count", () => {
  it("counts each follower or fork holder once, and only while they follow or hold the fork", async () => {
    const owner = await signIn({ username: `own${Date.now().toString(36)}` });
    const t = (
      await api("POST", "/api/v1/tasks", { auth: owner.token, body: { search_query: "counted", state: "paused" } })
    ).body;
    await api("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    const count = async () => (await api("GET", `/api/v1/tasks/${t.id}`, { auth: owner.token })).body.subscriber_count;
    const fork = async (token: string) => {
      const r = await api("POST", `/api/v1/tasks/${t.id}/fork`, { auth: token });
      expect(r.status).toBe(200);
      return r.body.id as string;
    };

    const a = await signIn();
    const first = await fork(a.token);
    const second = await fork(a.token);
    expect(await count()).toBe(1); // one user, two forks
    await fork(owner.token);
    expect(await count()).toBe(1); // the owner's own fork is not a subscriber
    expect(
      (await api("POST", `/api/v1/tasks/${t.id}/follow`, { auth: a.token, body: { notifications: [] } })).status,
    ).toBe(201);
    expect(await count()).toBe(1); // following as well: still one user

    expect((await api("DELETE", `/api/v1/tasks/${first}`, { auth: a.token })).status).toBe(204);
    expect(await count()).toBe(1);
    expect((await api("DELETE", `/api/v1/tasks/${t.id}/follow`, { auth: a.token })).status).toBe(204);
    expect(await count()).toBe(1); // still holds a fork
    expect((await api("DELETE", `/api/v1/tasks/${second}`, { auth: a.token })).status).toBe(204);
    expect(await count()).toBe(0);

    // A deleted account takes its fork back.
    const b = await signIn();
    await fork(b.token);
    expect(await count()).toBe(1);
    expect((await clerkEvent("user.deleted", { id: b.clerkId, deleted: true, object: "user" })).body).toEqual({
      status: "deleted",
    });
    expect(await count()).toBe(0);
  });
});
