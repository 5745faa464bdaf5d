/**
 * Email settings (CONTRACT §11): validation, quiet hours (email held until they end, sent once, across a crash;
 * webhooks never wait) and the daily digest at 08:00 local (one email with the findings instead of one each).
 *
 * The server's clock is shifted (WATCH_CLOCK_OFFSET_MS) so that it reads 07:59:30 UTC when it starts: quiet hours
 * ending at 08:00 and the 08:00 digest then come 30 s later, in real time (the start-up and setup take part of it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnv } from "../global-setup";
import { call, server, testClerkKeys, uniqueId } from "../helpers/api";
import { mintSessionToken } from "../helpers/clerk";
import { startAgain, startServer, type RunningServer } from "../helpers/server";
import { startModelStub, startSearxStub, stubbedServiceEnv } from "../helpers/stubs/model";
import { startResendStub, startWebhookReceiver } from "../helpers/stubs/receivers";
import { waitFor } from "../helpers/wait";

const DAY_MS = 24 * 3_600_000;
/** The next 07:59:30 UTC (real time): the server's clock reads that when it starts. */
const serverStart = (() => {
  const t = new Date();
  t.setUTCHours(7, 59, 30, 0);
  return t.getTime() > Date.now() ? t.getTime() : t.getTime() + DAY_MS;
})();
const offset = serverStart - Date.now();
/** 08:00 on the server's clock, in real time. */
const eightReal = serverStart + 30_000 - offset;

let own: RunningServer;
let model: Awaited<ReturnType<typeof startModelStub>>;
let searx: Awaited<ReturnType<typeof startSearxStub>>;
let resend: Awaited<ReturnType<typeof startResendStub>>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let ownEnv: Record<string, string>;

beforeAll(async () => {
  model = await startModelStub();
  searx = await startSearxStub();
  resend = await startResendStub();
  receiver = await startWebhookReceiver();
  ownEnv = {
    ...serverEnv(server().clerkPublicPem, server().clerkApiUrl),
    ...stubbedServiceEnv({ model, searx, resend }),
    WATCH_CLOCK_OFFSET_MS: String(offset),
  };
  own = await startServer(ownEnv);
});

afterAll(async () => {
  await own?.stop();
  await Promise.all([model, searx, resend, receiver].map((s) => s?.close()));
});

type Opts = { auth?: string; body?: unknown };
const api = (method: string, path: string, opts: Opts = {}) => call(method, path, { base: own.url, ...opts });

async function signIn() {
  const token = await mintSessionToken(await testClerkKeys(), uniqueId("user"));
  const synced = await api("POST", "/auth/sync-user", { auth: token });
  expect(synced.status).toBe(200);
  return { token, email: synced.body.user.email as string };
}

async function runMet(auth: string | undefined, notifications: unknown[]) {
  const task = (
    await api("POST", "/api/v1/tasks", {
      auth,
      body: { search_query: uniqueId("release"), state: "paused", notifications },
    })
  ).body;
  const started = await api("POST", `/api/v1/tasks/${task.id}/execute`, { auth });
  expect(started.status).toBe(200);
  await waitFor(
    "the run",
    async () =>
      (await api("GET", `/api/v1/tasks/${task.id}/executions?limit=1`, { auth })).body[0]?.status === "success",
  );
  return task as { id: string; name: string };
}

const sendsOf = async (auth: string | undefined, taskId?: string) =>
  (await api("GET", `/api/v1/notifications/sends${taskId ? `?task_id=${taskId}` : ""}`, { auth })).body.sends as {
    event: string;
    notification_type: string;
    status: string;
    task_id: string | null;
    recipient: string;
  }[];

describe("email settings", () => {
  it("are on the account (UTC, no quiet hours, no digest by default) and change field by field; bad values → 422", async () => {
    const user = await signIn();
    expect((await api("GET", "/auth/me", { auth: user.token })).body.settings).toEqual({
      timezone: "UTC",
      quiet_hours: null,
      email_digest: "off",
    });
    const patch = (body: unknown) => api("PATCH", "/api/v1/users/me/settings", { auth: user.token, body });
    const saved = await patch({ timezone: "Europe/Berlin", quiet_hours: { start: "22:30", end: "07:00" } });
    expect(saved.status).toBe(200);
    expect(saved.body.settings).toEqual({
      timezone: "Europe/Berlin",
      quiet_hours: { start: "22:30", end: "07:00" },
      email_digest: "off",
    });
    expect((await patch({ email_digest: "daily" })).body.settings).toEqual({
      timezone: "Europe/Berlin",
      quiet_hours: { start: "22:30", end: "07:00" },
      email_digest: "daily",
    });
    expect((await patch({ quiet_hours: null, email_digest: "off" })).body.settings).toEqual({
      timezone: "Europe/Berlin",
      quiet_hours: null,
      email_digest: "off",
    });

    for (const bad of [
      { timezone: "Mars/Olympus" },
      { timezone: "" },
      { quiet_hours: { start: "25:00", end: "07:00" } },
      { quiet_hours: { start: "7:00", end: "08:00" } },
      { quiet_hours: { start: "08:00", end: "08:00" } },
      { quiet_hours: { start: "08:00" } },
      { email_digest: "weekly" },
      { timezone: "UTC", colour: "blue" },
      { timezone: 5 },
    ]) {
      const r = await patch(bad);
      expect(r.status, JSON.stringify(bad)).toBe(422);
      expect(Array.isArray(r.body.detail)).toBe(true);
    }
    expect((await api("GET", "/auth/me", { auth: user.token })).body.settings.timezone).toBe("Europe/Berlin"); // nothing half-written
    expect((await api("PATCH", "/api/v1/users/me/settings", { auth: "Bearer nope", body: {} })).status).toBe(401);
  });

  let quiet: { id: string; name: string };
  let digestUser: Awaited<ReturnType<typeof signIn>>;
  let digested: { id: string; name: string };

  it("in quiet hours, a finding's webhook goes at once and its email waits; with the digest on, no email per finding", async () => {
    // Quiet hours until 08:00 UTC for the development user.
    expect(
      (
        await api("PATCH", "/api/v1/users/me/settings", {
          body: { timezone: "UTC", quiet_hours: { start: "22:00", end: "08:00" } },
        })
      ).status,
    ).toBe(200);
    quiet = await runMet(undefined, [
      { type: "email", address: "test@localhost" },
      { type: "webhook", url: `${receiver.url}/quiet` },
    ]);
    await waitFor("the webhook", async () => receiver.requests.some((r) => r.url === "/quiet"));

    digestUser = await signIn();
    expect(
      (
        await api("PATCH", "/api/v1/users/me/settings", {
          auth: digestUser.token,
          body: { timezone: "UTC", email_digest: "daily" },
        })
      ).status,
    ).toBe(200);
    digested = await runMet(digestUser.token, [{ type: "email", address: digestUser.email }]);

    await new Promise((r) => setTimeout(r, 1000));
    expect(Date.now(), "the setup took longer than the server's clock allows (08:00 passed)").toBeLessThan(eightReal);
    expect((await sendsOf(undefined, quiet.id)).map((s) => s.notification_type)).toEqual(["webhook"]);
    expect(resend.emails().filter((m) => m.to === "test@localhost")).toEqual([]);
    expect(await sendsOf(digestUser.token)).toEqual([]);
    expect(resend.emails().filter((m) => m.to === digestUser.email)).toEqual([]);
  });

  it("when quiet hours end, after a crash meanwhile, the held email is sent once; at 08:00 the digest carries the finding", async () => {
    await own.kill();
    own = await startAgain(own, ownEnv);

    const held = await waitFor(
      "the held email",
      async () => resend.emails().find((m) => m.to === "test@localhost"),
      180_000,
    );
    expect(Date.now()).toBeGreaterThanOrEqual(eightReal - 1000);
    expect(held.subject).toBeTruthy();
    const digest = await waitFor(
      "the digest",
      async () => resend.emails().find((m) => m.to === digestUser.email),
      60_000,
    );
    expect(digest.subject).toBe("Your Watch digest: 1 finding");
    expect(digest.html).toContain(digested.name);

    await new Promise((r) => setTimeout(r, 2000));
    expect(resend.emails().filter((m) => m.to === "test@localhost")).toHaveLength(1);
    expect(resend.emails().filter((m) => m.to === digestUser.email)).toHaveLength(1);
    const quietSends = await sendsOf(undefined, quiet.id);
    expect(quietSends.map((s) => [s.notification_type, s.status]).sort()).toEqual([
      ["email", "sent"],
      ["webhook", "sent"],
    ]);
    expect((await sendsOf(digestUser.token)).map((s) => [s.event, s.task_id, s.status])).toEqual([
      ["digest.daily", null, "sent"],
    ]);
  }, 300_000);
});
