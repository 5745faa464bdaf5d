/**
 * The whole loop with no internet: the agent (the stub model calling the SearXNG stub), the embedded scheduler, email
 * through the Resend stub and a signed webhook to the receiver. Also: notify-once, failed deliveries, a model that
 * cannot be reached, and pausing or deleting a watch with a wake-up pending. A crash in the middle of a delivery is
 * tested on a real server (tests/http/agent-loop.test.ts).
 */
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { withService } from "../helpers/service";
import { decisionFor } from "../helpers/stubs/model";
import { settledSends, waitFor } from "../helpers/wait";

const app = withService({ SERVICE_NOAUTH: "1" });
let findingKey = "pg19-beta1";
beforeAll(() => app.stubs.model.decide(() => decisionFor({ finding_key: findingKey })));

const call = (method: string, path: string, opts: { body?: unknown } = {}) => app.call(method, path, opts);
const executions = async (id: string) => (await call("GET", `/api/v1/tasks/${id}/executions`)).body as any[];
const finished = (id: string, n: number) =>
  waitFor(`${n} finished execution(s)`, async () => {
    const list = await executions(id);
    return list.filter((e) => e.status === "success" || e.status === "failed").length >= n && list;
  });

describe("agent loop end to end", () => {
  it("runs a new watch, records the result, schedules the next run and delivers email + signed webhook once", async () => {
    const created = await call("POST", "/api/v1/tasks", {
      body: {
        search_query: "Postgres 19 beta",
        condition_description: "a beta release is announced",
        run_immediately: true,
        notifications: [
          { type: "email", address: "test@localhost" },
          { type: "webhook", url: `${app.stubs.receiver.url}/hook`, headers: { "x-team": "db" } },
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
      {
        url: "https://www.postgresql.org/about/news/pg19-beta1/",
        title: "PostgreSQL 19 Beta 1 Released",
        domain: "postgresql.org",
      },
    ]);
    expect(
      app.stubs.searx.requests.some(
        (r) => r.url.includes("q=Postgres+19+beta") || r.url.includes("q=Postgres%2019%20beta"),
      ),
    ).toBe(true);

    const task = (await call("GET", `/api/v1/tasks/${id}`)).body;
    expect(task.state).toBe("active");
    expect(new Date(task.next_run).getTime()).toBeGreaterThan(Date.now() + 4 * 60_000);
    expect(task.last_execution.id).toBe(run.id);
    expect(task.last_known_state).toMatchObject({ latest: "beta1" });

    await waitFor("webhook delivery", async () => app.stubs.receiver.to("/hook").length >= 1);
    await waitFor("email delivery", async () => app.stubs.resend.emails().length >= 1);
    const hook = app.stubs.receiver.to("/hook")[0]!;
    const { secret } = (await call("GET", "/api/v1/webhooks/secret")).body;
    const event = new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>) as any;
    expect(event).toMatchObject({
      type: "task.condition_met",
      data: { task: { id, url: expect.stringContaining(`/dashboard/w/${id}`) }, execution: { id: run.id } },
    });
    expect(hook.headers["x-team"]).toBe("db");
    expect(hook.headers["webhook-id"]).toBe(`msg_${run.id}`);
    const mail = app.stubs.resend.emails()[0];
    expect(mail).toMatchObject({ to: "test@localhost", subject: "PostgreSQL 19 Beta 1 is out" });
    expect(mail.html).toContain("Pause this watch");
    // The verdict strip first, the sources by their site, and one full-width button to the watch.
    expect(mail.text).toMatch(/^Condition met · found \d{1,2} \w{3} \d{4}/m);
    expect(mail.html).toMatch(/>postgresql\.org<\/span>/);
    expect(mail.html).toMatch(new RegExp(`<a href="[^"]+/dashboard/w/${id}" class="email-button"[^>]*>`));

    const sends = await waitFor("two settled send records", async () =>
      settledSends((await call("GET", `/api/v1/notifications/sends?task_id=${id}`)).body, 2),
    );
    expect(sends.sends.map((s: any) => `${s.notification_type}:${s.status}`).sort()).toEqual([
      "email:sent",
      "webhook:sent",
    ]);
    const findings = (await call("GET", `/api/v1/tasks/${id}/notifications`)).body;
    expect(findings.map((e: any) => e.id)).toEqual([run.id]);

    // The same finding again: recorded, but nobody is notified twice.
    const again = await call("POST", `/api/v1/tasks/${id}/execute`);
    expect(again.status).toBe(200);
    const list = await finished(id, 2);
    expect(list[0].status).toBe("success");
    expect(list[0].notification).toBeNull();
    await new Promise((r) => setTimeout(r, 500));
    expect(app.stubs.receiver.to("/hook")).toHaveLength(1);
    expect(app.stubs.resend.emails()).toHaveLength(1);
  });

  it("records a failed webhook delivery, independently of email", async () => {
    findingKey = "pg19-beta2";
    app.stubs.receiver.reply("/failing", () => ({ status: 500, text: "nope" }));
    const created = await call("POST", "/api/v1/tasks", {
      body: {
        search_query: "Postgres 19 beta 2",
        run_immediately: true,
        notifications: [
          { type: "email", address: "test@localhost" },
          { type: "webhook", url: `${app.stubs.receiver.url}/failing` },
        ],
      },
    });
    const id = created.body.id;
    await finished(id, 1);
    const sends = await waitFor("both send records settled", async () =>
      settledSends((await call("GET", `/api/v1/notifications/sends?task_id=${id}`)).body, 2),
    );
    const byType = Object.fromEntries(sends.sends.map((s: any) => [s.notification_type, s]));
    expect(byType.webhook).toMatchObject({
      status: "failed",
      error_message: "HTTP 500",
      recipient: `${app.stubs.receiver.url}/failing`,
    });
    expect(byType.email).toMatchObject({ status: "sent", recipient: "test@localhost" });
  });

  it("fails a run clearly when the model is unreachable, and keeps the watch active", async () => {
    app.setEnv({ AGENT_BASE_URL: "http://127.0.0.1:9/v1" });
    const created = await call("POST", "/api/v1/tasks", {
      body: { search_query: "unreachable model", run_immediately: true },
    });
    const [run] = await finished(created.body.id, 1);
    expect(run.status).toBe("failed");
    expect(run.error_message).toMatch(/Model provider error from openai-compatible:stub/);
    const task = (await call("GET", `/api/v1/tasks/${created.body.id}`)).body;
    expect(task.state).toBe("active");
    expect(new Date(task.next_run).getTime()).toBeGreaterThan(Date.now());
    app.setEnv({});
  });

  it("pausing cancels the pending wake-up; deleting a watch cancels it too", async () => {
    const created = await call("POST", "/api/v1/tasks", {
      body: { search_query: "paused soon", state: "paused" },
    });
    const id = created.body.id;
    expect(created.body.next_run).toBeNull();
    const resumed = await call("PUT", `/api/v1/tasks/${id}`, { body: { state: "active" } });
    expect(resumed.body.next_run).not.toBeNull();
    const paused = await call("PUT", `/api/v1/tasks/${id}`, { body: { state: "paused" } });
    expect(paused.body.next_run).toBeNull();
    await new Promise((r) => setTimeout(r, 2500));
    // Resumed and paused within a few ms: the wake-up was cancelled before it ran (or found the watch paused).
    const runs = await executions(id);
    expect(runs.filter((e) => e.status === "success").length).toBeLessThanOrEqual(1);
    const deleted = await call("DELETE", `/api/v1/tasks/${id}`);
    expect(deleted.status).toBe(204);
  });
});
