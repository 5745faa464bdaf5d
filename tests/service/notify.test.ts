/** Email delivery rules and the notification links: address verification, caps, test sends, one-click pause. */
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { withService } from "../helpers/service";
import { decisionFor } from "../helpers/stubs/model";
import { settledSends, waitFor } from "../helpers/wait";

const app = withService({ SERVICE_NOAUTH: "1", EMAILS_PER_RECIPIENT_PER_HOUR: "3" });
let finding = 0;
// Every run is a new finding, so every run notifies.
beforeAll(() => app.stubs.model.decide(() => decisionFor({ finding_key: `finding-${++finding}` })));

const api = (method: string, path: string, body?: unknown) => app.call(method, path, { body });

/** Runs the watch once; the send record of its finding (a verification email may be recorded beside it). */
async function runOnce(taskId: string) {
  const findings = async () => (await api("GET", `/api/v1/notifications/sends?task_id=${taskId}&limit=100`)).body;
  const before = (await findings()).sends.filter((s: { event: string }) => s.event === "task.condition_met").length;
  const started = await api("POST", `/api/v1/tasks/${taskId}/execute`);
  expect(started.status).toBe(200);
  const page = await waitFor("a settled send record", async () => {
    const p = await findings();
    return (
      settledSends(p, p.total) &&
      p.sends.filter((s: { event: string }) => s.event === "task.condition_met").length > before &&
      p
    );
  });
  return page.sends.find((s: { event: string }) => s.event === "task.condition_met");
}

describe("email rules", () => {
  it("holds mail to another address until it is confirmed, then delivers, within the hourly cap", async () => {
    const t = (
      await api("POST", "/api/v1/tasks", {
        search_query: "other address",
        state: "paused",
        notifications: [{ type: "email", address: "friend@example.com" }],
      })
    ).body;
    const first = await runOnce(t.id);
    expect(first).toMatchObject({ notification_type: "email", status: "skipped", recipient: "friend@example.com" });
    expect(first.error_message).toMatch(/address not verified: verification link sent to friend@example.com/);
    // The verification email is a send of its own: recorded, and counted against the caps.
    const sends = (await api("GET", `/api/v1/notifications/sends?task_id=${t.id}`)).body.sends;
    expect(sends.find((s: { event: string }) => s.event === "email.verification")).toMatchObject({
      status: "sent",
      execution_id: null,
      recipient: "friend@example.com",
    });
    expect(app.stubs.resend.emails().find((m) => m.to === "friend@example.com").subject).toMatch(/Confirm/);
    // The link opens a page (tests/http/pages.test.ts); only its button (a POST) confirms, because mail scanners
    // follow links.
    const link = app.stubs.resend.linkIn("friend@example.com", "/email/verify")!;
    expect(link.pathname).toBe("/email/verify");
    expect((await api("GET", `/api/v1/email/verify${link.search}`)).status).toBe(404);
    expect((await runOnce(t.id)).error_message).toMatch(/waiting for friend@example.com to confirm/);
    const token = link.searchParams.get("token");
    expect((await api("POST", "/api/v1/email/verify", { token })).body).toEqual({
      verified: true,
      email: "friend@example.com",
    });
    expect((await api("POST", "/api/v1/email/verify", { token: "unknown" })).body).toEqual({
      detail: "Invalid or expired token",
    });

    expect(await runOnce(t.id)).toMatchObject({ status: "sent", error_message: null });
    expect(await runOnce(t.id)).toMatchObject({ status: "sent", error_message: null });
    const capped = await runOnce(t.id);
    expect(capped).toMatchObject({ status: "skipped" });
    expect(capped.error_message).toMatch(/hourly email limit reached for friend@example.com \(3 per hour\)/);
  });

  it("holds the caps under concurrent sends: exactly the remaining allowance goes out", async () => {
    const t = (
      await api("POST", "/api/v1/tasks", {
        search_query: "burst",
        state: "paused",
        notifications: [{ type: "email", address: "burst@example.com" }],
      })
    ).body;
    const test = () => api("POST", `/api/v1/tasks/${t.id}/notifications/test`, { type: "email" });
    expect((await test()).body.error_message).toMatch(/verification link sent/);
    const { token } = Object.fromEntries(app.stubs.resend.linkIn("burst@example.com", "/email/verify")!.searchParams);
    expect((await api("POST", "/api/v1/email/verify", { token })).status).toBe(200);
    // The verification email took one of the three per hour.
    const burst = await Promise.all(Array.from({ length: 8 }, test));
    expect(burst.map((r) => r.body.status).sort()).toEqual(["sent", "sent", ...Array(6).fill("skipped")]);
    expect(app.stubs.resend.emails().filter((m) => m.to === "burst@example.com")).toHaveLength(3);
    const tests = (await api("GET", `/api/v1/notifications/sends?task_id=${t.id}&limit=100`)).body.sends.filter(
      (s: { event: string }) => s.event === "task.test",
    );
    expect(tests).toHaveLength(9);
  });

  it("pauses a watch from the link in its email", async () => {
    // Created paused so that only this test's run happens; resumed before the link is used.
    const t = (
      await api("POST", "/api/v1/tasks", {
        search_query: "pause me",
        state: "paused",
        notifications: [{ type: "email", address: "test@localhost" }],
      })
    ).body;
    await runOnce(t.id);
    expect((await api("PUT", `/api/v1/tasks/${t.id}`, { state: "active" })).body.state).toBe("active");
    // The link opens a page that only offers the button (tests/http/pages.test.ts).
    const link = app.stubs.resend.linkIn("test@localhost", "/email/pause")!;
    expect(link.pathname).toBe("/email/pause");
    expect((await api("GET", `/api/v1/tasks/${t.id}`)).body.state).toBe("active");
    const { task, token } = Object.fromEntries(link.searchParams);
    expect(task).toBe(t.id);
    // Signed by the service, bound to this watch and an expiry (7 days ahead).
    const [subject, expires, mac] = token!.split(".");
    expect(subject).toBe(t.id);
    expect(Number(expires) * 1000 - Date.now()).toBeGreaterThan(6.9 * 24 * 3_600_000);
    const otherWatch = (await api("POST", "/api/v1/tasks", { search_query: "another", state: "paused" })).body.id;
    for (const forged of [
      `${subject}.${expires}.forged`,
      `${subject}.${Number(expires) + 60}.${mac}`,
      `${otherWatch}.${expires}.${mac}`,
      `${subject}.0.${mac}`,
      "1.x",
    ])
      expect((await api("POST", "/api/v1/email/pause", { task, token: forged })).body).toEqual({
        detail: "Invalid or expired link",
      });
    expect((await api("POST", "/api/v1/email/pause", { task, token })).body).toEqual({ status: "paused" });
    expect((await api("GET", `/api/v1/tasks/${t.id}`)).body).toMatchObject({ state: "paused", next_run: null });
  });
});

describe("test notifications", () => {
  it("sends a signed test webhook and a test email, recorded as task.test sends", async () => {
    const t = (
      await api("POST", "/api/v1/tasks", {
        search_query: "test sends",
        state: "paused",
        notifications: [
          { type: "email", address: "test@localhost" },
          { type: "webhook", url: `${app.stubs.receiver.url}/test` },
        ],
      })
    ).body;
    const hook = await api("POST", `/api/v1/tasks/${t.id}/notifications/test`, { type: "webhook" });
    expect(hook.body).toEqual({ status: "sent", failure: null, error_message: null });
    const req = app.stubs.receiver.to("/test").at(-1)!;
    const { secret } = (await api("GET", "/api/v1/webhooks/secret")).body;
    expect((new Webhook(secret).verify(req.body, req.headers as Record<string, string>) as any).type).toBe("task.test");
    const mail = await api("POST", `/api/v1/tasks/${t.id}/notifications/test`, { type: "email" });
    expect(mail.body.status).toBe("sent");
    const sends = (await api("GET", `/api/v1/notifications/sends?task_id=${t.id}`)).body.sends;
    expect(
      sends.map((s: { event: string; notification_type: string; status: string; execution_id: string | null }) => [
        s.event,
        s.notification_type,
        s.status,
        s.execution_id,
      ]),
    ).toEqual([
      ["task.test", "email", "sent", null],
      ["task.test", "webhook", "sent", null],
    ]);
    const bare = (await api("POST", "/api/v1/tasks", { search_query: "no channels", state: "paused" })).body;
    expect((await api("POST", `/api/v1/tasks/${bare.id}/notifications/test`, { type: "email" })).status).toBe(400);
  });
});

describe("redelivery on any channel", () => {
  /** A paused watch on `channels`, run once: its finding's send record on each channel, once all have settled. */
  async function notified(query: string, channels: unknown[]) {
    const t = (await api("POST", "/api/v1/tasks", { search_query: query, state: "paused", notifications: channels }))
      .body;
    expect((await api("POST", `/api/v1/tasks/${t.id}/execute`)).status).toBe(200);
    const sends = await waitFor("a settled send on every channel", async () => {
      const p = (await api("GET", `/api/v1/notifications/sends?task_id=${t.id}&event=task.condition_met`)).body;
      return settledSends(p, channels.length) && p.sends;
    });
    const on = (type: string) => sends.find((s: { notification_type: string }) => s.notification_type === type);
    return { id: t.id as string, on };
  }

  it("sends a chat channel's notice again as a new attempt, and an email's under the email rules", async () => {
    app.stubs.receiver.reply("/ntfy-again", () => ({ status: 400, text: "no such topic" }));
    const { id, on } = await notified("redeliver a push", [
      { type: "ntfy", url: `${app.stubs.receiver.url}/ntfy-again/watch-topic`, token: "tk_redeliverSECRET" },
      { type: "email", address: "test@localhost" },
    ]);
    const failed = on("ntfy");
    expect(failed).toMatchObject({
      status: "failed",
      failure: "refused",
      attempt: 1,
      error_message: "HTTP 400: no such topic",
    });
    // Retried in a minute by the delivery workflow (whose attempt 2 then finds the redelivery's claim and stops).

    app.stubs.receiver.reply("/ntfy-again", () => ({ json: { id: "msg1" } }));
    const again = await api("POST", `/api/v1/notifications/sends/${failed.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({
      status: "sent",
      attempt: 2,
      failure: null,
      event: "task.condition_met",
      notification_type: "ntfy",
      execution_id: failed.execution_id,
      recipient: failed.recipient,
    });
    const pushed = app.stubs.receiver.to("/ntfy-again");
    expect(pushed).toHaveLength(2);
    expect(pushed[1]!.headers.authorization).toBe("Bearer tk_redeliverSECRET");
    expect(JSON.parse(pushed[1]!.body)).toMatchObject({ topic: "watch-topic" });
    const view = (await api("GET", `/api/v1/tasks/${id}`)).body;
    expect(view.delivery_failed).toBe(false);
    expect(view.delivery.find((d: { channel: string }) => d.channel === "ntfy")).toMatchObject({
      state: "delivered",
      attempts: 2,
      send_id: again.body.id,
    });

    const mailed = app.stubs.resend.emails().filter((m) => m.to === "test@localhost").length;
    // This file's hourly cap is spent on the account's address by now: room for this one.
    app.setEnv({ EMAILS_PER_RECIPIENT_PER_HOUR: "100" });
    const email = await api("POST", `/api/v1/notifications/sends/${on("email").id}/redeliver`).finally(() =>
      app.setEnv({}),
    );
    expect(email.status).toBe(202);
    expect(email.body).toMatchObject({ status: "sent", attempt: 2, notification_type: "email" });
    expect(app.stubs.resend.emails().filter((m) => m.to === "test@localhost")).toHaveLength(mailed + 1);

    // A channel removed since: nothing to send to.
    expect((await api("PUT", `/api/v1/tasks/${id}`, { notifications: [] })).status).toBe(200);
    expect((await api("POST", `/api/v1/notifications/sends/${failed.id}/redeliver`)).body).toEqual({
      detail: "That ntfy (phone push) channel is no longer configured (or the follow ended)",
    });
  });

  it("refuses test sends, and others' or unknown sends", async () => {
    const t = (
      await api("POST", "/api/v1/tasks", {
        search_query: "redeliver a test",
        state: "paused",
        notifications: [{ type: "webhook", url: `${app.stubs.receiver.url}/redeliver-test` }],
      })
    ).body;
    await api("POST", `/api/v1/tasks/${t.id}/notifications/test`, { type: "webhook" });
    const [test] = (await api("GET", `/api/v1/notifications/sends?task_id=${t.id}&event=task.test`)).body.sends;
    const refused = await api("POST", `/api/v1/notifications/sends/${test.id}/redeliver`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ detail: "Only deliveries of a run can be redelivered, not test sends" });
    const unknown = await api("POST", "/api/v1/notifications/sends/00000000-0000-4000-8000-000000000000/redeliver");
    expect([unknown.status, unknown.body]).toEqual([404, { detail: "Send not found" }]);
  });
});

describe("a test before saving", () => {
  const test = (body: unknown, auth?: string) => app.call("POST", "/api/v1/notifications/test", { body, auth });

  it("sends a signed test webhook and a push to configs no watch has, recorded without a watch", async () => {
    const hook = await test({
      notification: { type: "webhook", url: `${app.stubs.receiver.url}/unsaved` },
      name: "Rain",
    });
    expect([hook.status, hook.body]).toEqual([200, { status: "sent", failure: null, error_message: null }]);
    const req = app.stubs.receiver.to("/unsaved").at(-1)!;
    const { secret } = (await api("GET", "/api/v1/webhooks/secret")).body;
    const event = new Webhook(secret).verify(req.body, req.headers as Record<string, string>) as any;
    expect(event).toMatchObject({ type: "task.test", data: { task: { id: null, name: "Rain" } } });

    const push = await test({ notification: { type: "ntfy", url: `${app.stubs.receiver.url}/unsaved-push/topic` } });
    expect(push.body).toEqual({ status: "sent", failure: null, error_message: null });
    expect(JSON.parse(app.stubs.receiver.to("/unsaved-push").at(-1)!.body)).toMatchObject({
      topic: "topic",
      title: expect.stringContaining("Test"),
    });
    const sends = (await api("GET", "/api/v1/notifications/sends?event=task.test&limit=100")).body.sends;
    expect(sends.find((s: { notification_type: string }) => s.notification_type === "ntfy")).toMatchObject({
      task_id: null,
      execution_id: null,
      status: "sent",
    });
  });

  it("validates as a save does, and says why a send failed without repeating a secret", async () => {
    const bad = await test({ notification: { type: "slack", url: "hooks.slack.com/services/T1/B2/secretXYZ" } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/^Invalid notification: /);
    expect(bad.body.detail).not.toContain("secretXYZ");
    expect((await test({ notification: { type: "pigeon" } })).body.detail).toMatch(/^Invalid notification: type/);
    expect((await test({ notification: { type: "ntfy", url: "https://ntfy.sh/…opic" } })).body).toEqual({
      detail: "Invalid notification: ntfy url is redacted and there is no stored value to keep: send the full value",
    });
    expect((await test({})).status).toBe(422);

    // The service echoes what it was sent: the answer shows the token as reads do.
    app.stubs.receiver.reply("/echo", () => ({ status: 401, text: "bad token tk_echoedSECRET1234" }));
    const failed = await test({
      notification: { type: "ntfy", url: `${app.stubs.receiver.url}/echo/topic`, token: "tk_echoedSECRET1234" },
    });
    expect(failed.body).toEqual({ status: "failed", failure: "refused", error_message: "HTTP 401: bad token …1234" });
  });

  it("with a watch: names it, and a redacted secret stands for the stored one", async () => {
    const t = (
      await api("POST", "/api/v1/tasks", {
        search_query: "saved push",
        state: "paused",
        notifications: [{ type: "ntfy", url: `${app.stubs.receiver.url}/saved-push/topic`, token: "tk_storedSECRET" }],
      })
    ).body;
    const shown = (await api("GET", `/api/v1/tasks/${t.id}`)).body.notifications[0];
    expect(shown.token).toBe("…CRET");
    const r = await test({ notification: shown, task_id: t.id });
    expect(r.body).toEqual({ status: "sent", failure: null, error_message: null });
    const req = app.stubs.receiver.to("/saved-push").at(-1)!;
    expect(req.headers.authorization).toBe("Bearer tk_storedSECRET");
    expect(JSON.parse(req.body).title).toContain(t.name);
    const sends = (await api("GET", `/api/v1/notifications/sends?task_id=${t.id}&event=task.test`)).body.sends;
    expect(sends).toHaveLength(1);
    const unknown = await test({ notification: shown, task_id: "00000000-0000-4000-8000-000000000000" });
    expect([unknown.status, unknown.body]).toEqual([404, { detail: "Task not found" }]);
  });

  it("holds an email to a typed address until it is confirmed, under the email caps", async () => {
    // An account of its own: this file's other tests spent the development account's 10 a minute.
    const { apiKey } = await app.newApiKeyUser();
    const address = "typed-test@example.com";
    const first = await test({ notification: { type: "email", address } }, apiKey);
    expect(first.body).toEqual({
      status: "skipped",
      failure: "refused",
      error_message: `address not verified: verification link sent to ${address}`,
    });
    expect(
      app.stubs.resend
        .emails()
        .filter((m) => m.to === address)
        .map((m) => m.subject),
    ).toEqual(["Confirm your address for Watch"]);
    const again = await test({ notification: { type: "email", address } }, apiKey);
    expect(again.body.error_message).toBe(`address not verified: waiting for ${address} to confirm`);
    const { token } = Object.fromEntries(app.stubs.resend.linkIn(address, "/email/verify")!.searchParams);
    expect((await api("POST", "/api/v1/email/verify", { token })).status).toBe(200);
    // Three per hour per mailbox (this file's setting): the verification took one.
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push((await test({ notification: { type: "email", address } }, apiKey)).body);
    expect(sent.map((s) => s.status)).toEqual(["sent", "sent", "skipped"]);
    expect(sent[2]).toMatchObject({ failure: "internal", error_message: expect.stringMatching(/hourly email limit/) });
    expect(app.stubs.resend.emails().filter((m) => m.to === address)).toHaveLength(3);
  });

  it("allows 10 a minute per account, said in the rate-limit headers", async () => {
    const user = await app.newApiKeyUser();
    const config = { notification: { type: "webhook", url: `${app.stubs.receiver.url}/limited` } };
    const answers = [];
    // All eleven in one window, however slow the machine (ten sends to a receiver can take longer than a minute).
    const clock = app.freezeRateLimits();
    for (let i = 0; i < 11; i++) answers.push(await test(config, user.apiKey));
    clock.release();
    expect(answers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(answers[0]!.headers.get("x-ratelimit-limit")).toBe("10");
    expect(answers[9]!.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(answers[10]!.status).toBe(429);
    expect(answers[10]!.headers.get("retry-after")).toBeTruthy();
    expect(app.stubs.receiver.to("/limited")).toHaveLength(10);
  });
});
