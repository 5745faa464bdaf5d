/**
 * The path a new user takes, on the built server: GOOGLE_GENERATIVE_AI_API_KEY and nothing else, Gemini's API
 * replayed from a recorded grounded answer by a local stub (tests/helpers/stubs/providers.ts). The first run records
 * the met finding with the grounding links resolved to the real pages and Gemini's usage, and delivers one signed
 * webhook; Gemini overloaded fails a run with its own words, keeps the watch active and retries it with backoff.
 * Without any model, start-up says so in one line and the watch page shows the fix; without Clerk, no page's policy
 * allows Clerk's hosts. The other providers run through the same steps in tests/unit/providers.test.ts (a server per
 * provider would cost a start each: the model is chosen from the process's environment).
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_MODEL_CONFIGURED } from "@/server/agent/config";
import { call } from "../helpers/api";
import { startServer, type RunningServer } from "../helpers/server";
import { decisionFor } from "../helpers/stubs/model";
import { recordedGrounding, startProviderStub } from "../helpers/stubs/providers";
import { startWebhookReceiver } from "../helpers/stubs/receivers";
import { settledSends, waitFor } from "../helpers/wait";

let stub: Awaited<ReturnType<typeof startProviderStub>>;
let gemini: RunningServer;
let unconfigured: RunningServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

const executions = async (base: string, id: string) =>
  (await call("GET", `/api/v1/tasks/${id}/executions`, { base })).body as any[];
const finished = (base: string, id: string, n: number) =>
  waitFor(
    `${n} finished execution(s)`,
    async () => {
      const list = await executions(base, id);
      return list.filter((e) => e.status === "success" || e.status === "failed").length >= n && list;
    },
    40_000,
  );

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stub = await startProviderStub("google", (query) =>
    decisionFor({ answer: `Found: ${query}`, sources: [], finding_key: query }),
  );
  [gemini, unconfigured] = await Promise.all([
    startServer({ SERVICE_NOAUTH: "1", ...stub.env() }),
    startServer({ SERVICE_NOAUTH: "1" }),
  ]);
});

afterAll(async () => {
  await Promise.all([gemini, unconfigured].map((s) => s?.stop()));
  await Promise.all([receiver, stub].map((s) => s?.close()));
});

describe("Gemini with Google Search, the default model", () => {
  it("records a met finding with the real pages behind the grounding links and Gemini's usage, and one signed webhook", async () => {
    const base = gemini.url;
    const created = await call("POST", "/api/v1/tasks", {
      base,
      body: {
        search_query: "Euro 2024 winner",
        run_immediately: true,
        notifications: [{ type: "webhook", url: `${receiver.url}/hook` }],
      },
    });
    expect(created.status).toBe(200);
    const id = created.body.id;

    const [run] = await finished(base, id, 1);
    expect(run.status).toBe("success");
    expect(run.result).toMatchObject({
      condition_met: true,
      answer: "Found: Euro 2024 winner",
      model: "google:gemini-2.5-flash",
      usage: { input_tokens: 17, output_tokens: 370 },
    });
    expect(run.grounding_sources).toEqual([
      { url: "https://www.aljazeera.com/sports/euro-2024-final", title: "aljazeera.com", domain: "aljazeera.com" },
      { url: "https://www.uefa.com/euro2024/news/spain-wins-euro-2024", title: "uefa.com", domain: "uefa.com" },
    ]);
    expect(stub.bodies()[0]!.tools).toEqual([{ googleSearch: {} }]);

    const hook = await waitFor("the webhook", async () => receiver.requests.find((r) => r.url === "/hook"));
    const { secret } = (await call("GET", "/api/v1/webhooks/secret", { base })).body;
    const event = new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>) as any;
    expect(event).toMatchObject({
      type: "task.condition_met",
      data: { execution: { id: run.id, grounding_sources: run.grounding_sources } },
    });
    const sends = await waitFor("the settled send record", async () =>
      settledSends((await call("GET", `/api/v1/notifications/sends?task_id=${id}`, { base })).body, 1),
    );
    expect(sends.sends.map((s: any) => `${s.notification_type}:${s.status}`)).toEqual(["webhook:sent"]);
    expect(receiver.requests).toHaveLength(1);
    expect(gemini.output()).not.toMatch(/DeprecationWarning|No model configured/);
  });

  it("overloaded: the run fails with Gemini's words, the watch stays active and is retried; then it recovers", async () => {
    const base = gemini.url;
    stub.fail("overloaded");
    const created = await call("POST", "/api/v1/tasks", {
      base,
      body: { search_query: "overloaded", run_immediately: true },
    });
    const id = created.body.id;
    const [failed] = await finished(base, id, 1);
    expect(failed.status).toBe("failed");
    expect(failed.error_message).toBe(
      "Model provider error from google:gemini-2.5-flash: HTTP 503 The model is overloaded. Please try again later. " +
        "(the provider is overloaded or failing; the run is retried later), after 3 attempts",
    );
    const task = (await call("GET", `/api/v1/tasks/${id}`, { base })).body;
    expect(task.state).toBe("active");
    // The first retry comes a minute after the failure (backoff; the watch stays active).
    const retryIn = new Date(task.next_run).getTime() - new Date(failed.completed_at).getTime();
    expect(retryIn).toBeGreaterThan(55_000);
    expect(retryIn).toBeLessThan(65_000);

    stub.fail(null);
    expect((await call("POST", `/api/v1/tasks/${id}/execute`, { base })).status).toBe(200);
    const [recovered] = await finished(base, id, 2);
    expect(recovered).toMatchObject({ status: "success", grounding_sources: recordedGrounding.google });
  });
});

describe("no model configured", () => {
  it("start-up says so in one line; a watch's failed checks show the fix on its page", async () => {
    const base = unconfigured.url;
    const hint = unconfigured
      .output()
      .split("\n")
      .filter((l) => l.includes("No model configured"));
    // One log line (JSON or pretty, as LOG_FORMAT says), carrying the sentence.
    expect(hint).toHaveLength(1);
    expect(hint[0]).toContain(`⚠ Every watch check will fail until this is fixed: ${NO_MODEL_CONFIGURED}`);

    const created = await call("POST", "/api/v1/tasks", {
      base,
      body: { search_query: "no model", run_immediately: true },
    });
    const [run] = await finished(base, created.body.id, 1);
    expect(run).toMatchObject({ status: "failed", error_message: NO_MODEL_CONFIGURED });
    expect((await call("GET", `/api/v1/tasks/${created.body.id}`, { base })).body.state).toBe("active");

    const page = await fetch(`${base}/dashboard/w/${created.body.id}`);
    expect(page.status).toBe(200);
    const html = (await page.text()).replaceAll("<!-- -->", "");
    expect(html).toContain("Checks cannot run yet: this server has no AI model configured.");
    expect(html).toContain(
      "<code>GOOGLE_GENERATIVE_AI_API_KEY</code>: Gemini with Google Search (<code>gemini-2.5-flash</code>)",
    );
    expect(html).not.toContain("The last check failed");
  });
});

describe("a server without Clerk", () => {
  it("gets no Clerk hosts in its pages' Content-Security-Policy", async () => {
    const csp = (await fetch(`${unconfigured.url}/dashboard`)).headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self' 'nonce-");
    expect(csp).not.toContain("clerk");
  });
});
