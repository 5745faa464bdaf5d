/**
 * The whole loop on a running server with no internet: the agent (a local OpenAI-compatible stub model calling
 * a local SearXNG stub), the embedded scheduler, email through a local Resend stub and a signed webhook to a local
 * receiver. Also: notify-once, failed deliveries, and a crash in the middle of a delivery.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { startAgain, startServer, type RunningServer } from "../helpers/server";
import { decisionFor, startModelStub, startSearxStub, stubbedServiceEnv } from "../helpers/stubs/model";
import { startResendStub, startWebhookReceiver } from "../helpers/stubs/receivers";
import { settledSends, waitFor } from "../helpers/wait";

type Stub = Awaited<ReturnType<typeof startModelStub>>;
let model: Stub;
let searx: Awaited<ReturnType<typeof startSearxStub>>;
let resend: Awaited<ReturnType<typeof startResendStub>>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let failing: Awaited<ReturnType<typeof startWebhookReceiver>>;
let server: RunningServer;
let findingKey = "pg19-beta1";

const env = () => stubbedServiceEnv({ model, searx, resend });

const base = () => server.url;
const executions = async (id: string) =>
  (await call("GET", `/api/v1/tasks/${id}/executions`, { base: base() })).body as any[];
const finished = (id: string, n: number) =>
  waitFor(`${n} finished execution(s)`, async () => {
    const list = await executions(id);
    return list.filter((e) => e.status === "success" || e.status === "failed").length >= n && list;
  });

beforeAll(async () => {
  model = await startModelStub(() => decisionFor({ finding_key: findingKey }));
  searx = await startSearxStub();
  resend = await startResendStub();
  receiver = await startWebhookReceiver();
  failing = await startWebhookReceiver(() => ({ status: 500, text: "nope" }));
  server = await startServer(env());
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([model, searx, resend, receiver, failing].map((s) => s?.close()));
});

describe("agent loop end to end", () => {
  it("runs a new watch, records the result, schedules the next run and delivers email + signed webhook once", async () => {
    const created = await call("POST", "/api/v1/tasks", {
      base: base(),
      body: {
        search_query: "Postgres 19 beta",
        condition_description: "a beta release is announced",
        run_immediately: true,
        notifications: [
          { type: "email", address: "test@localhost" },
          { type: "webhook", url: `${receiver.url}/hook`, headers: { "x-team": "db" } },
        ],
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.immediate_execution_error).toBeNull();
    const id = created.body.id;

    const [run] = await finished(id, 1);
    expect(run.status).toBe("success");
    expect(run.result).toMatchObject({
      condition_met: true,
      answer: expect.stringContaining("Beta 1"),
      confidence: 0.9,
      model: "openai-compatible:stub",
      usage: { input_tokens: 240, output_tokens: 60 },
    });
    expect(run.result.duration_ms).toBeGreaterThanOrEqual(0);
    expect(run.notification).toEqual({ title: "PostgreSQL 19 Beta 1 is out", markdown: "Beta 1 was released today." });
    expect(run.grounding_sources).toEqual([
      { url: "https://www.postgresql.org/about/news/pg19-beta1/", title: "PostgreSQL 19 Beta 1 Released" },
    ]);
    expect(
      searx.requests.some((r) => r.url.includes("q=Postgres+19+beta") || r.url.includes("q=Postgres%2019%20beta")),
    ).toBe(true);

    const task = (await call("GET", `/api/v1/tasks/${id}`, { base: base() })).body;
    expect(task.state).toBe("active");
    expect(new Date(task.next_run).getTime()).toBeGreaterThan(Date.now() + 4 * 60_000);
    expect(task.last_execution.id).toBe(run.id);
    expect(task.last_known_state).toMatchObject({ latest: "beta1" });

    await waitFor("webhook delivery", async () => receiver.requests.length >= 1);
    await waitFor("email delivery", async () => resend.emails().length >= 1);
    const hook = receiver.requests[0]!;
    const { secret } = (await call("GET", "/api/v1/webhooks/secret", { base: base() })).body;
    const event = new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>) as any;
    expect(event).toMatchObject({
      type: "task.condition_met",
      data: { task: { id, url: expect.stringContaining(`/dashboard/w/${id}`) }, execution: { id: run.id } },
    });
    expect(hook.headers["x-team"]).toBe("db");
    expect(hook.headers["webhook-id"]).toBe(`msg_${run.id}`);
    const mail = resend.emails()[0];
    expect(mail).toMatchObject({ to: "test@localhost", subject: "PostgreSQL 19 Beta 1 is out" });
    expect(mail.html).toContain("Pause this watch");

    const sends = await waitFor("two settled send records", async () =>
      settledSends((await call("GET", `/api/v1/notifications/sends?task_id=${id}`, { base: base() })).body, 2),
    );
    expect(sends.sends.map((s: any) => `${s.notification_type}:${s.status}`).sort()).toEqual([
      "email:sent",
      "webhook:sent",
    ]);
    const findings = (await call("GET", `/api/v1/tasks/${id}/notifications`, { base: base() })).body;
    expect(findings.map((e: any) => e.id)).toEqual([run.id]);

    // The same finding again: recorded, but nobody is notified twice.
    const again = await call("POST", `/api/v1/tasks/${id}/execute`, { base: base() });
    expect(again.status).toBe(200);
    const list = await finished(id, 2);
    expect(list[0].status).toBe("success");
    expect(list[0].notification).toBeNull();
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests).toHaveLength(1);
    expect(resend.emails()).toHaveLength(1);
  });

  it("records a failed webhook delivery, independently of email", async () => {
    findingKey = "pg19-beta2";
    const created = await call("POST", "/api/v1/tasks", {
      base: base(),
      body: {
        search_query: "Postgres 19 beta 2",
        run_immediately: true,
        notifications: [
          { type: "email", address: "test@localhost" },
          { type: "webhook", url: `${failing.url}/hook` },
        ],
      },
    });
    const id = created.body.id;
    await finished(id, 1);
    const sends = await waitFor("both send records settled", async () =>
      settledSends((await call("GET", `/api/v1/notifications/sends?task_id=${id}`, { base: base() })).body, 2),
    );
    const byType = Object.fromEntries(sends.sends.map((s: any) => [s.notification_type, s]));
    expect(byType.webhook).toMatchObject({
      status: "failed",
      error_message: "HTTP 500",
      recipient: `${failing.url}/hook`,
    });
    expect(byType.email).toMatchObject({ status: "sent", recipient: "test@localhost" });
  });

  it("fails a run clearly when the model is unreachable, and keeps the watch active", async () => {
    await server.stop();
    server = await startAgain(server, { ...env(), AGENT_BASE_URL: "http://127.0.0.1:9/v1" });
    const created = await call("POST", "/api/v1/tasks", {
      base: base(),
      body: { search_query: "unreachable model", run_immediately: true },
    });
    const [run] = await finished(created.body.id, 1);
    expect(run.status).toBe("failed");
    expect(run.error_message).toMatch(/Model provider error from openai-compatible:stub/);
    const task = (await call("GET", `/api/v1/tasks/${created.body.id}`, { base: base() })).body;
    expect(task.state).toBe("active");
    expect(new Date(task.next_run).getTime()).toBeGreaterThan(Date.now());
    await server.stop();
    server = await startAgain(server, env());
  }, 90_000); // two restarts of the server

  it("pausing cancels the pending wake-up; deleting a watch cancels it too", async () => {
    const created = await call("POST", "/api/v1/tasks", {
      base: base(),
      body: { search_query: "paused soon", state: "paused" },
    });
    const id = created.body.id;
    expect(created.body.next_run).toBeNull();
    const resumed = await call("PUT", `/api/v1/tasks/${id}`, { base: base(), body: { state: "active" } });
    expect(resumed.body.next_run).not.toBeNull();
    const paused = await call("PUT", `/api/v1/tasks/${id}`, { base: base(), body: { state: "paused" } });
    expect(paused.body.next_run).toBeNull();
    await new Promise((r) => setTimeout(r, 2500));
    // Resumed and paused within a few ms: the wake-up was cancelled before it ran (or found the watch paused).
    const runs = await executions(id);
    expect(runs.filter((e) => e.status === "success").length).toBeLessThanOrEqual(1);
    const deleted = await call("DELETE", `/api/v1/tasks/${id}`, { base: base() });
    expect(deleted.status).toBe(204);
  });
});

describe("durability", () => {
  it("a crash in the middle of a delivery: each channel at most once, the other unaffected, nothing repeated after restart", async () => {
    findingKey = "pg19-rc1";
    await server.stop();
    const slowMail = await startResendStub(() => ({ json: { id: "email_slow" }, delayMs: 60_000 }));
    server = await startAgain(server, { ...env(), RESEND_BASE_URL: slowMail.url });
    const created = await call("POST", "/api/v1/tasks", {
      base: base(),
      body: {
        search_query: "Postgres 19 rc",
        run_immediately: true,
        notifications: [
          { type: "email", address: "test@localhost" },
          { type: "webhook", url: `${receiver.url}/crash` },
        ],
      },
    });
    // The run is recorded; its webhook (a workflow of its own) goes out while the email hangs; the process dies there.
    await waitFor("the email attempt", async () => slowMail.requests.length >= 1);
    await waitFor("the webhook", async () => receiver.requests.some((r) => r.url === "/crash"));
    await server.kill();

    const mailsBefore = resend.emails().length;
    server = await startAgain(server, env());
    await waitFor("the interrupted email settled", async () => {
      const page = (await call("GET", `/api/v1/notifications/sends?task_id=${created.body.id}`, { base: base() })).body;
      return page.total === 2 && page;
    });
    await new Promise((r) => setTimeout(r, 2000)); // recovery has replayed the workflows by now
    expect(receiver.requests.filter((r) => r.url === "/crash")).toHaveLength(1);
    expect(slowMail.requests).toHaveLength(1);
    expect(resend.emails()).toHaveLength(mailsBefore); // the cut-short email is not sent again through the new server
    const list = await executions(created.body.id);
    expect(list.filter((e) => e.status === "success")).toHaveLength(1);
    const sends = (await call("GET", `/api/v1/notifications/sends?task_id=${created.body.id}`, { base: base() })).body;
    // The interrupted email attempt is recorded and not repeated (it may have gone out); the webhook went out once.
    expect(sends.sends.map((s: any) => `${s.notification_type}:${s.status}:${s.error_message ?? ""}`).sort()).toEqual([
      "email:failed:delivery interrupted",
      "webhook:sent:",
    ]);
    await slowMail.close();
  });
});
