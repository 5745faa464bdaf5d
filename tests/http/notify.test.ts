/** Email delivery rules and the notification links: address verification, caps, test sends, one-click pause. */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { startServer, type RunningServer } from "../helpers/server";
import { decisionFor, startModelStub, startSearxStub, stubbedServiceEnv } from "../helpers/stubs/model";
import { startResendStub, startWebhookReceiver } from "../helpers/stubs/receivers";
import { settledSends, waitFor } from "../helpers/wait";

let server: RunningServer;
let model: Awaited<ReturnType<typeof startModelStub>>;
let searx: Awaited<ReturnType<typeof startSearxStub>>;
let resend: Awaited<ReturnType<typeof startResendStub>>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let finding = 0;

beforeAll(async () => {
  // Every run is a new finding, so every run notifies.
  model = await startModelStub(() => decisionFor({ finding_key: `finding-${++finding}` }));
  searx = await startSearxStub();
  resend = await startResendStub();
  receiver = await startWebhookReceiver();
  server = await startServer({ ...stubbedServiceEnv({ model, searx, resend }), EMAILS_PER_RECIPIENT_PER_HOUR: "2" });
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([model, searx, resend, receiver].map((s) => s?.close()));
});

const api = (method: string, path: string, body?: unknown) => call(method, path, { base: server.url, body });

async function runOnce(taskId: string) {
  const before = (await api("GET", `/api/v1/notifications/sends?task_id=${taskId}`)).body.total;
  const started = await api("POST", `/api/v1/tasks/${taskId}/execute`);
  expect(started.status).toBe(200);
  const sends = await waitFor("a settled send record", async () =>
    settledSends((await api("GET", `/api/v1/notifications/sends?task_id=${taskId}`)).body, before + 1),
  );
  return sends.sends[0];
}

describe("email rules", () => {
  it("holds mail to another address until it is confirmed, then delivers, within the hourly cap", async () => {
    const t = (await api("POST", "/api/v1/tasks", { search_query: "other address", state: "paused", notifications: [{ type: "email", address: "friend@example.com" }] })).body;
    const first = await runOnce(t.id);
    expect(first).toMatchObject({ notification_type: "email", status: "skipped", recipient: "friend@example.com" });
    expect(first.error_message).toMatch(/address not verified: verification link sent to friend@example.com/);
    const verification = resend.emails().find((m) => m.to === "friend@example.com");
    expect(verification.subject).toMatch(/Confirm/);
    const link = /https?:\/\/[^"\s]+\/api\/v1\/email\/verify\?token=[A-Za-z0-9_-]+/.exec(verification.html)![0];
    const token = new URL(link.replace(/&amp;/g, "&")).searchParams.get("token");
    expect((await api("GET", `/api/v1/email/verify?token=${token}`)).body).toEqual({ verified: true, email: "friend@example.com" });
    expect((await api("GET", "/api/v1/email/verify?token=unknown")).status).toBe(404);

    expect(await runOnce(t.id)).toMatchObject({ status: "sent", error_message: null });
    expect(await runOnce(t.id)).toMatchObject({ status: "sent" });
    const capped = await runOnce(t.id);
    expect(capped).toMatchObject({ status: "skipped" });
    expect(capped.error_message).toMatch(/hourly email limit/);
  });

  it("pauses a watch from the link in its email", async () => {
    // Created paused so that only this test's run happens; resumed before the link is used.
    const t = (await api("POST", "/api/v1/tasks", { search_query: "pause me", state: "paused", notifications: [{ type: "email", address: "test@localhost" }] })).body;
    await runOnce(t.id);
    expect((await api("PUT", `/api/v1/tasks/${t.id}`, { state: "active" })).body.state).toBe("active");
    const mail = resend.emails().filter((m) => m.to === "test@localhost").at(-1);
    const link = /https?:\/\/[^"\s]+\/api\/v1\/email\/pause\?task=[^"\s]+/.exec(mail.html)![0].replace(/&amp;/g, "&");
    const url = new URL(link);
    expect((await api("GET", `${url.pathname}${url.search.replace(/token=[^&]+/, "token=forged")}`)).status).toBe(404);
    expect((await api("GET", `${url.pathname}${url.search}`)).body).toEqual({ status: "paused" });
    expect((await api("GET", `/api/v1/tasks/${t.id}`)).body).toMatchObject({ state: "paused", next_run: null });
  });
});

describe("test notifications", () => {
  it("sends a signed test webhook and a test email, without touching the history", async () => {
    const t = (await api("POST", "/api/v1/tasks", {
      search_query: "test sends",
      state: "paused",
      notifications: [{ type: "email", address: "test@localhost" }, { type: "webhook", url: `${receiver.url}/test` }],
    })).body;
    const hook = await api("POST", `/api/v1/tasks/${t.id}/notifications/test`, { type: "webhook" });
    expect(hook.body).toEqual({ status: "sent", error_message: null });
    const req = receiver.requests.at(-1)!;
    const { secret } = (await api("GET", "/api/v1/webhooks/secret")).body;
    expect((new Webhook(secret).verify(req.body, req.headers as Record<string, string>) as any).type).toBe("task.test");
    const mail = await api("POST", `/api/v1/tasks/${t.id}/notifications/test`, { type: "email" });
    expect(mail.body.status).toBe("sent");
    expect((await api("GET", `/api/v1/notifications/sends?task_id=${t.id}`)).body.total).toBe(0);
    const bare = (await api("POST", "/api/v1/tasks", { search_query: "no channels", state: "paused" })).body;
    expect((await api("POST", `/api/v1/tasks/${bare.id}/notifications/test`, { type: "email" })).status).toBe(400);
  });
});
