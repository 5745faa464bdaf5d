/**
 * Quiet hours (email held until they end, sent once, across a crash; webhooks never wait) and the daily digest at
 * 08:00 local (one email with the findings instead of one each), on a server whose clock is shifted. The settings
 * themselves are tested in-process (tests/service/email-settings.test.ts).
 *
 * The server's clock is shifted (WATCH_CLOCK_OFFSET_MS) so that it reads 07:59 UTC as it starts: quiet hours
 * ending at 08:00 and the 08:00 digest then come a minute later, in real time (the start-up and setup take part of it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, uniqueId } from "../helpers/api";
import { mintSessionToken } from "../helpers/clerk";
import { startAgain, startServer, type RunningServer } from "../helpers/server";
import { startStubs, type Stubs } from "../helpers/stubs";
import { waitFor } from "../helpers/wait";

/**
 * From the server's start to 08:00 on its clock: its start-up and the first test fit in it. They took 15 s with every
 * core busy with the rest of the suite, 37 s on a machine running the browser tier beside it.
 */
const MARGIN_MS = 60_000;
/** 08:00 on the server's clock, in real time. */
let eightReal: number;

let own: RunningServer;
let stubs: Stubs;
let ownEnv: Record<string, string>;

beforeAll(async () => {
  stubs = await startStubs();
  // The next 08:00 UTC, so the shift is forward: runs are stamped with the real time, which must fall before the
  // shifted 08:00 that closes the digest's window (past 08:00 real time, today's 08:00 would shift the clock back).
  const eight = new Date();
  eight.setUTCHours(8, 0, 0, 0);
  eightReal = Date.now() + MARGIN_MS;
  if (eight.getTime() < eightReal) eight.setUTCDate(eight.getUTCDate() + 1);
  const offset = eight.getTime() - eightReal;
  ownEnv = {
    ...stubs.clerkEnv(),
    ...stubs.servicesEnv(),
    SERVICE_NOAUTH: "1",
    WATCH_CLOCK_OFFSET_MS: String(offset),
  };
  own = await startServer(ownEnv);
});

afterAll(async () => {
  await own?.stop();
  await stubs?.close();
});

type Opts = { auth?: string; body?: unknown };
const api = (method: string, path: string, opts: Opts = {}) => call(method, path, { base: own.url, ...opts });

async function signIn() {
  const token = await mintSessionToken(stubs.clerk.keys, uniqueId("user"));
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
      { type: "webhook", url: `${stubs.receiver.url}/quiet` },
    ]);
    await waitFor("the webhook", async () => stubs.receiver.to("/quiet").length > 0);

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
    expect(stubs.resend.emails().filter((m) => m.to === "test@localhost")).toEqual([]);
    expect(await sendsOf(digestUser.token)).toEqual([]);
    expect(stubs.resend.emails().filter((m) => m.to === digestUser.email)).toEqual([]);
  });

  it("when quiet hours end, after a crash meanwhile, the held email is sent once; at 08:00 the digest carries the finding", async () => {
    await own.kill();
    own = await startAgain(own, ownEnv);

    const held = await waitFor(
      "the held email",
      async () => stubs.resend.emails().find((m) => m.to === "test@localhost"),
      180_000,
    );
    expect(Date.now()).toBeGreaterThanOrEqual(eightReal - 1000);
    expect(held.subject).toBeTruthy();
    const digest = await waitFor(
      "the digest",
      async () => stubs.resend.emails().find((m) => m.to === digestUser.email),
      60_000,
    );
    expect(digest.subject).toBe("Your Watch digest: 1 finding");
    expect(digest.html).toContain(digested.name);

    await new Promise((r) => setTimeout(r, 2000));
    expect(stubs.resend.emails().filter((m) => m.to === "test@localhost")).toHaveLength(1);
    expect(stubs.resend.emails().filter((m) => m.to === digestUser.email)).toHaveLength(1);
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
