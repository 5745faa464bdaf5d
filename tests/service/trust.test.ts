/**
 * Trust in a finding, the stub model steered per watch: a held finding is sent once a later run clears the gate, a
 * retraction goes out once, signed; a failing watch says so once and then that it recovered; a webhook is redelivered
 * with its webhook-id; during a rotation's overlap both secrets verify.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyWebhook } from "@/client/webhooks";
import { withService } from "../helpers/service";
import { decisionFor } from "../helpers/stubs/model";
import { settledSends, waitFor } from "../helpers/wait";

const app = withService({ SERVICE_NOAUTH: "1" });

const api = (method: string, path: string, body?: unknown) => app.call(method, path, { body });
const sendsOf = async (taskId: string) =>
  (await api("GET", `/api/v1/notifications/sends?task_id=${taskId}&limit=100`)).body;
const hooksTo = (path: string) => app.stubs.receiver.to(path);

async function watch(query: string, body: Record<string, unknown> = {}) {
  const r = await api("POST", "/api/v1/tasks", {
    search_query: query,
    state: "paused",
    notifications: [
      { type: "email", address: "test@localhost" },
      { type: "webhook", url: `${app.stubs.receiver.url}/${encodeURIComponent(query)}` },
    ],
    ...body,
  });
  expect(r.status).toBe(200);
  return r.body.id as string;
}

/** Runs the watch now and waits until the run and all its deliveries are settled; the run. */
async function runNow(id: string) {
  const started = await api("POST", `/api/v1/tasks/${id}/execute`);
  expect(started.status).toBe(200);
  const run = await waitFor("the run", async () => {
    const [latest] = (await api("GET", `/api/v1/tasks/${id}/executions?limit=1`)).body;
    return latest?.id === started.body.id && latest.status !== "pending" && latest.status !== "running" && latest;
  });
  // Deliveries follow the record step: wait until the history is settled and has not changed for a second.
  let seen = { total: -1, since: 0 };
  await waitFor("settled deliveries", async () => {
    const page = await sendsOf(id);
    if (!settledSends(page, page.total) || page.total !== seen.total) seen = { total: page.total, since: Date.now() };
    return Date.now() - seen.since >= 1000;
  });
  return run;
}

describe("confidence gate and corroboration", () => {
  it("holds a finding below the bounds (visibly), then sends it once when a later run clears them", async () => {
    const id = await watch("gated release", { min_confidence: 0.8, min_sources: 2 });
    expect((await api("GET", `/api/v1/tasks/${id}`)).body).toMatchObject({ min_confidence: 0.8, min_sources: 2 });
    app.stubs.model.answer("gated release", decisionFor({ finding_key: "gated-1", confidence: 0.9 }));
    const held = await runNow(id);
    expect(held.result.gate).toEqual({ passed: false, reason: "1 independent source, 2 required" });
    expect(held.notification).toBeNull();
    expect((await sendsOf(id)).total).toBe(0);
    expect(hooksTo("/gated%20release")).toHaveLength(0);

    app.stubs.model.answer(
      "gated release",
      decisionFor({
        finding_key: "gated-1",
        confidence: 0.9,
        sources: [
          { url: "https://www.postgresql.org/news", title: "PostgreSQL" },
          { url: "https://lwn.net/Articles/1", title: "LWN" },
        ],
      }),
    );
    const cleared = await runNow(id);
    expect(cleared.result.gate).toEqual({ passed: true, reason: null });
    await runNow(id); // the same finding again: nothing new
    const sends = (await sendsOf(id)).sends;
    expect(
      sends.map((s: { event: string; notification_type: string }) => `${s.event}:${s.notification_type}`).sort(),
    ).toEqual(["task.condition_met:email", "task.condition_met:webhook"]);
    expect(hooksTo("/gated%20release")).toHaveLength(1);
  });
});

describe("retraction", () => {
  it("tells once, by email and signed webhook, that the notified finding was withdrawn", async () => {
    const id = await watch("retracted news");
    app.stubs.model.answer(
      "retracted news",
      decisionFor({
        finding_key: "launch-announced",
        notification: { title: "Launch announced", markdown: "It is announced." },
      }),
    );
    const found = await runNow(id);
    app.stubs.model.answer(
      "retracted news",
      decisionFor({
        condition_met: false,
        notify: false,
        notification: null,
        retracts_previous: true,
        answer: "The announcement was withdrawn.",
      }),
    );
    const withdrawn = await runNow(id);
    expect(withdrawn.result.retracted_execution_id).toBe(found.id);
    await runNow(id); // still withdrawn: no second retraction

    const hooks = hooksTo("/retracted%20news");
    expect(hooks.map((h) => JSON.parse(h.body).type)).toEqual(["task.condition_met", "task.condition_retracted"]);
    const { secret } = (await api("GET", "/api/v1/webhooks/secret")).body;
    const event = new Webhook(secret).verify(hooks[1]!.body, hooks[1]!.headers as Record<string, string>) as any;
    expect(event).toMatchObject({
      type: "task.condition_retracted",
      data: { retracted_execution_id: found.id, execution: { id: withdrawn.id }, task: { id } },
    });
    expect(hooks[1]!.headers["webhook-id"]).toBe(`msg_${withdrawn.id}_task.condition_retracted`);
    const mail = app.stubs.resend.emails().find((m) => m.subject === "Retracted: Launch announced");
    expect(mail?.to).toBe("test@localhost");
    expect(mail?.text).toMatch(/^Retracted · \d{1,2} \w{3} \d{4}/m);
    const events = (await sendsOf(id)).sends.map((s: { event: string }) => s.event);
    expect(events.filter((e: string) => e === "task.condition_retracted")).toHaveLength(2); // email + webhook

    // Marked publicly too: the finding on the page, and an item of its own in RSS.
    await api("PATCH", "/api/v1/users/me/username", { username: `trust${Date.now().toString(36)}` });
    expect((await api("PATCH", `/api/v1/tasks/${id}/visibility`, { is_public: true })).status).toBe(200);
    const rss = await app.fetch(`/api/v1/public/tasks/id/${id}/rss`).then((r) => r.text());
    expect(rss).toContain("<![CDATA[Retracted: Launch announced]]>");
    // The public page marks it too (tests/http/pages.test.ts).
  });
});

describe("failure notices", () => {
  it("sends task.run_failed at the third failure in a row (webhook, and email to the account), once; then task.run_recovered", async () => {
    const id = await watch("broken watch");
    app.stubs.model.answer("broken watch", { providerError: 400 });
    for (let i = 0; i < 4; i++) expect((await runNow(id)).status).toBe("failed");
    app.stubs.model.answer(
      "broken watch",
      decisionFor({ finding_key: null, notify: false, notification: null, condition_met: false }),
    );
    expect((await runNow(id)).status).toBe("success");
    await runNow(id);

    const hooks = hooksTo("/broken%20watch").map((h) => JSON.parse(h.body));
    expect(hooks.map((h) => h.type)).toEqual(["task.run_failed", "task.run_recovered"]);
    expect(hooks[0]).toMatchObject({
      data: {
        consecutive_failures: 3,
        execution: { status: "failed", error_message: expect.stringMatching(/HTTP 400/) },
      },
    });
    const failingMail = app.stubs.resend.emails().find((m) => m.subject === "Your watch “New Monitor” keeps failing");
    expect(failingMail).toMatchObject({ to: "test@localhost" });
    expect(failingMail.html).toContain("What to do");
    expect(failingMail.text).toMatch(/^Failing · the last 3 checks failed/m);
    expect(
      app.stubs.resend.emails().filter((m) => m.subject === "Your watch “New Monitor” is working again"),
    ).toHaveLength(1);
    const filtered = (await api("GET", `/api/v1/notifications/sends?task_id=${id}&event=task.run_failed`)).body;
    expect(filtered.sends.map((s: { notification_type: string }) => s.notification_type).sort()).toEqual([
      "email",
      "webhook",
    ]);
  });

  it("a preview whose model fails answers 502 with the provider's error", async () => {
    app.stubs.model.answer("preview failure", { providerError: 400 });
    const r = await api("POST", "/api/v1/tasks/preview", { search_query: "preview failure" });
    expect(r.status).toBe(502);
    expect(r.body.detail).toMatch(/^Model provider error from openai-compatible:stub: HTTP 400/);
  });
});

describe("redelivery", () => {
  it("sends a failed webhook again as a new attempt with the same webhook-id; any channel, only your own", async () => {
    app.stubs.receiver.reply("/flaky", () => ({ status: 503, text: "down" }));
    const r = await api("POST", "/api/v1/tasks", {
      search_query: "redelivered",
      state: "paused",
      notifications: [
        { type: "email", address: "test@localhost" },
        { type: "webhook", url: `${app.stubs.receiver.url}/flaky` },
      ],
    });
    app.stubs.model.answer("redelivered", decisionFor({ finding_key: "redelivered-1" }));
    const run = await runNow(r.body.id);
    const sends = (await sendsOf(r.body.id)).sends;
    const failed = sends.find((s: { notification_type: string }) => s.notification_type === "webhook");
    expect(failed).toMatchObject({ status: "failed", error_message: "HTTP 503", attempt: 1 });

    app.stubs.receiver.reply("/flaky", () => ({ status: 200, text: "ok" }));
    const again = await api("POST", `/api/v1/notifications/sends/${failed.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({
      status: "sent",
      attempt: 2,
      event: "task.condition_met",
      execution_id: run.id,
      notification_type: "webhook",
    });
    const ids = app.stubs.receiver.to("/flaky").map((q) => q.headers["webhook-id"]);
    expect(ids.at(-1)).toBe(`msg_${run.id}`);
    expect(new Set(ids).size).toBe(1);

    const email = sends.find((s: { notification_type: string }) => s.notification_type === "email");
    expect((await api("POST", `/api/v1/notifications/sends/${email.id}/redeliver`)).body).toMatchObject({
      notification_type: "email",
      attempt: 2,
      status: "sent",
    });
    expect(
      (await api("POST", "/api/v1/notifications/sends/00000000-0000-4000-8000-000000000000/redeliver")).body,
    ).toEqual({ detail: "Send not found" });
  });
});

describe("secret rotation with overlap", () => {
  it("signs every delivery with the new and the old secret until the overlap ends; without overlap, only the new one", async () => {
    const id = await watch("rotated secret");
    const { secret: old } = (await api("GET", "/api/v1/webhooks/secret")).body;
    const rotated = await api("POST", "/api/v1/webhooks/secret/rotate", { overlap_hours: 2 });
    expect(rotated.status).toBe(200);
    expect(new Date(rotated.body.previous_expires_at).getTime() - Date.now()).toBeGreaterThan(1.9 * 3_600_000);
    expect((await api("GET", "/api/v1/webhooks/secret")).body).toEqual(rotated.body);

    app.stubs.model.answer("rotated secret", decisionFor({ finding_key: "rotation-1" }));
    await runNow(id);
    const hook = hooksTo("/rotated%20secret").at(-1)!;
    expect(String(hook.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [rotated.body.secret, old])
      expect(() => new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
    expect(verifyWebhook([old], hook.headers, hook.body)).toMatchObject({ type: "task.condition_met" });

    const immediate = (await api("POST", "/api/v1/webhooks/secret/rotate", { overlap_hours: 0 })).body;
    expect(immediate.previous_expires_at).toBeNull();
    app.stubs.model.answer("rotated secret", decisionFor({ finding_key: "rotation-2" }));
    await runNow(id);
    const next = hooksTo("/rotated%20secret").at(-1)!;
    expect(String(next.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(() => new Webhook(rotated.body.secret).verify(next.body, next.headers as Record<string, string>)).toThrow();
    expect(verifyWebhook(immediate.secret, next.headers, next.body)).toMatchObject({ type: "task.condition_met" });
    expect((await api("POST", "/api/v1/webhooks/secret/rotate", { overlap_hours: 73 })).status).toBe(422);
  });
});
