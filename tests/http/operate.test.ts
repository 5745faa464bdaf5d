/**
 * Operating a server of its own: metrics behind METRICS_TOKEN, traces to an OTLP/HTTP receiver, JSON logs that carry
 * request, execution and task ids and no secret, and a graceful shutdown during a run (readiness 503 at once, the run
 * completes, the process exits, nothing half-written), then a shutdown that cuts a run short (it resumes at the next
 * start).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type Res } from "../helpers/api";
import { startServer, type RunningServer } from "../helpers/server";
import { startStub, type StubRequest } from "../helpers/stubs/http";
import { decisionFor, startModelStub, startSearxStub, stubbedServiceEnv } from "../helpers/stubs/model";
import { startResendStub, startWebhookReceiver } from "../helpers/stubs/receivers";
import { parseExposition, sampleValue } from "../helpers/prometheus";
import { waitFor } from "../helpers/wait";

const METRICS_TOKEN = "metrics-token-for-tests-0123456789";

/**
 * The model's answers held back for the watches a test names (by search query), until it lets them go: a run is under
 * way, in the middle of its agent step, for as long as the test needs, whatever the machine's speed.
 */
const held = new Map<string, { release: () => void; released: Promise<void>; isReleased: () => boolean }>();
function holdAnswer(query: string) {
  let release!: () => void;
  let done = false;
  const released = new Promise<void>((r) => (release = () => ((done = true), r())));
  const gate = { release, released, isReleased: () => done };
  held.set(query, gate);
  return gate;
}

type Stubs = Awaited<ReturnType<typeof startStubs>>;
async function startStubs() {
  const model = await startModelStub(() => decisionFor({ condition_met: true }), {
    beforeAnswer: async (query) => held.get(query)?.released,
  });
  const searx = await startSearxStub();
  const resend = await startResendStub();
  const webhook = await startWebhookReceiver();
  const otlp = await startStub(() => ({ json: {} }));
  return { model, searx, resend, webhook, otlp };
}

const at = (srv: RunningServer) => ({
  call: <T = any>(method: string, path: string, opts: Parameters<typeof call>[2] = {}): Promise<Res<T>> =>
    call<T>(method, path, { ...opts, base: srv.url }),
});

type Span = { name: string; kind: number; spanId: string; parentSpanId?: string; attributes: Record<string, unknown> };
function spansOf(requests: StubRequest[]): Span[] {
  const value = (v: Record<string, unknown>) => v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue;
  return requests
    .filter((r) => r.url === "/v1/traces")
    .flatMap((r) => JSON.parse(r.body).resourceSpans)
    .flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans))
    .map((s: any) => ({
      name: s.name,
      kind: s.kind,
      spanId: s.spanId,
      parentSpanId: s.parentSpanId,
      attributes: Object.fromEntries(
        (s.attributes ?? []).map((a: any) => [a.key, value(a.value as Record<string, unknown>)]),
      ),
    }));
}

type Call = ReturnType<typeof at>["call"];

describe("operating a server", () => {
  let stubs: Stubs;
  let server: RunningServer;
  let apiKey: string;
  let webhookSecret: string;

  beforeAll(async () => {
    stubs = await startStubs();
    server = await startServer({
      ...stubbedServiceEnv(stubs),
      METRICS_TOKEN,
      OTEL_EXPORTER_OTLP_ENDPOINT: stubs.otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: "200",
      LOG_LEVEL: "debug",
      TRUST_PROXY: "1",
      TELEGRAM_API_URL: stubs.webhook.url,
    });
    const { call } = at(server);
    const key = await call("POST", "/auth/api-keys", { body: { name: "ops" } });
    expect(key.status).toBe(200);
    apiKey = key.body.key;
    webhookSecret = (await call("GET", "/api/v1/webhooks/secret")).body.secret;
    expect(webhookSecret).toMatch(/^whsec_/);
  });

  /** A watch created with its first run started by the create itself. */
  async function runNow(call: Call, search_query: string) {
    const created = await call("POST", "/api/v1/tasks", {
      auth: apiKey,
      body: { search_query, run_immediately: true },
    });
    expect(created.status).toBe(200);
    expect(created.body.immediate_execution_error).toBeNull();
    return created.body as { id: string };
  }

  afterAll(async () => {
    await server?.kill();
    await Promise.all(Object.values(stubs ?? {}).map((s) => s.close()));
  });

  it("serves /metrics to its token only", async () => {
    const { call } = at(server);
    expect((await call("GET", "/metrics")).status).toBe(401);
    expect((await call("GET", "/metrics", { auth: "wrong" })).status).toBe(401);
    const r = await call("GET", "/metrics", { auth: METRICS_TOKEN });
    expect(r.status).toBe(200);
    expect(parseExposition(r.text).get("watch_http_requests_total")?.type).toBe("counter");
  });

  it(
    "runs a watch end to end: request and run spans, ids in JSON logs, no secret in them",
    { timeout: 60_000 },
    async () => {
      const { call } = at(server);
      const created = await call("POST", "/api/v1/tasks", {
        auth: apiKey,
        body: {
          search_query: "Postgres 19 beta release",
          notifications: [{ type: "webhook", url: `${stubs.webhook.url}/hook` }],
          run_immediately: true,
        },
      });
      expect(created.status).toBe(200);
      expect(created.body.immediate_execution_error).toBeNull();
      const id = created.body.id as string;
      expect((await call("GET", "/api/v1/tasks", { auth: apiKey })).status).toBe(200);
      const done = await waitFor(
        "the run",
        async () => {
          const r = await call("GET", `/api/v1/tasks/${id}`, { auth: apiKey });
          return r.body.last_execution?.status === "success" && r.body.last_execution;
        },
        30_000,
      );
      await waitFor("the webhook", async () => stubs.webhook.requests.length > 0);

      // Traces: the request's span by route template, the run's workflow and steps, the model call with its tokens, the
      // database statements and the webhook delivery.
      const spans = await waitFor(
        "the spans",
        async () => {
          const spans = spansOf(stubs.otlp.requests);
          const names = new Set(spans.map((s) => s.name));
          return names.has("GET /api/v1/tasks") && names.has("watchRun") && names.has("deliver-webhook-1") && spans;
        },
        20_000,
      );
      const request = spans.find((s) => s.name === "GET /api/v1/tasks")!;
      expect(request.kind).toBe(2); // server
      expect(request.attributes["http.route"]).toBe("/api/v1/tasks");
      expect(request.attributes["http.response.status_code"]).toBe(200);
      const names = new Set(spans.map((s) => s.name));
      for (const step of ["begin", "evaluate"]) expect(names).toContain(step);
      const model = spans.find((s) => s.name === "ai.generateText.doGenerate");
      expect(model?.attributes["ai.usage.inputTokens"] ?? model?.attributes["ai.usage.promptTokens"]).toBe(120);
      // A statement made for the request is a child of the request's span: Next.js's own spans are left out (none
      // is between them) and so are the pool's connection checkouts.
      const statements = spans.filter((s) => s.attributes["db.system.name"] === "postgresql");
      expect(statements.some((s) => s.parentSpanId === request.spanId)).toBe(true);
      expect(statements.every((s) => s.name.startsWith("pg.query"))).toBe(true);
      expect(spans.filter((s) => s.attributes["next.span_type"])).toEqual([]);

      // Logs: every line one JSON object; a request's lines carry its id, the run's its execution and watch.
      const lines = server
        .output()
        .split("\n")
        .filter((l) => l.trim());
      const parsed = lines.map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          throw new Error(`not a JSON log line: ${l}`);
        }
      });
      for (const line of parsed) {
        expect(typeof line.time).toBe("string");
        expect(["debug", "info", "warn", "error", "fatal"]).toContain(line.level);
        expect(typeof line.msg).toBe("string");
      }
      expect(parsed.some((l) => typeof l.request_id === "string" && l.route === "/api/v1/tasks")).toBe(true);
      expect(parsed.some((l) => l.execution_id === done.id && l.task_id === id)).toBe(true);
      const all = server.output();
      expect(all).not.toContain(apiKey);
      expect(all).not.toContain(webhookSecret);
      expect(all).not.toMatch(/sk_[A-Za-z0-9]{20,}|whsec_[A-Za-z0-9+/]{20,}/);

      const metrics = parseExposition((await call("GET", "/metrics", { auth: METRICS_TOKEN })).text);
      expect(sampleValue(metrics, "watch_runs_total", { outcome: "success" })).toBe(1);
      expect(
        sampleValue(metrics, "watch_model_tokens_total", { provider: "openai-compatible", direction: "input" }),
      ).toBe(240);
      expect(sampleValue(metrics, "watch_deliveries_total", { channel: "webhook", status: "sent" })).toBe(1);
    },
  );

  it(
    "traces carry no secret and no watch text: outgoing requests by their origin only, statements without values",
    { timeout: 60_000 },
    async () => {
      const { call } = at(server);
      const hook = stubs.webhook.url;
      const marker = `quokka census ${Date.now()}`;
      const secrets = {
        webhook: "webhook-path-secret-5s1v",
        slack: "slackpathsecret7f3k",
        discord: "discordpathsecret2m9q",
        teams: "teamssigsecret8x4w",
        telegram: "123456789:telegramBotTokenSecret_4k2j9",
        ntfyTopic: "ntfytopicsecret3h6p",
        ntfyToken: "tk_ntfytokensecret1b5c",
        address: "span-reader-6t2n@example.com",
      };
      const created = await call("POST", "/api/v1/tasks", {
        auth: apiKey,
        body: {
          name: `${marker} (name)`,
          search_query: marker,
          condition_description: `${marker} (condition)`,
          notifications: [
            { type: "webhook", url: `${hook}/hook/${secrets.webhook}?key=${secrets.webhook}` },
            { type: "slack", url: `${hook}/services/T0/B0/${secrets.slack}` },
            { type: "discord", url: `${hook}/api/webhooks/1/${secrets.discord}` },
            {
              type: "teams",
              url: `${hook}/workflows/1/triggers/manual/paths/invoke?api-version=1&sig=${secrets.teams}`,
            },
            { type: "telegram", bot_token: secrets.telegram, chat_id: "42" },
            { type: "ntfy", url: `${hook}/${secrets.ntfyTopic}`, token: secrets.ntfyToken },
            { type: "email", address: secrets.address },
          ],
          run_immediately: true,
        },
      });
      expect(created.status).toBe(200);
      const id = created.body.id as string;
      await waitFor(
        "the run",
        async () =>
          (await call("GET", `/api/v1/tasks/${id}`, { auth: apiKey })).body.last_execution?.status === "success",
        30_000,
      );
      const delivered = (path: string) => stubs.webhook.requests.some((r) => r.url.startsWith(path));
      for (const path of [
        "/hook/",
        "/services/T0/B0/",
        "/api/webhooks/1/",
        "/workflows/1/",
        `/bot${secrets.telegram}/sendMessage`,
      ])
        await waitFor(`the delivery to ${path}`, async () => delivered(path));
      await waitFor("the ntfy publish", async () =>
        stubs.webhook.requests.some((r) => r.url === "/" && r.body.includes(secrets.ntfyTopic)),
      );
      await waitFor("the address's verification email", async () =>
        stubs.resend.emails().some((m) => m.to === secrets.address),
      );
      // Every span of the run has been exported: the deliveries' own are the last.
      const deliveries = [
        "deliver-webhook-1",
        "deliver-slack-1",
        "deliver-discord-1",
        "deliver-teams-1",
        "deliver-telegram-1",
        "deliver-ntfy-1",
      ];
      const spans = await waitFor(
        "the run's spans",
        async () => {
          const spans = spansOf(stubs.otlp.requests);
          const names = new Set(spans.map((s) => s.name));
          return deliveries.every((d) => names.has(d)) && spans;
        },
        20_000,
      );
      // The outgoing requests are there, each by its origin alone: the search, the model and every channel.
      const outgoing = spans.filter((s) => s.kind === 3 && typeof s.attributes["url.full"] === "string");
      const origins = new Set(outgoing.map((s) => s.attributes["url.full"]));
      for (const origin of [stubs.searx.url, stubs.model.url, hook]) expect(origins).toContain(origin);
      for (const s of outgoing) {
        expect(s.attributes["url.path"]).toBeUndefined();
        expect(s.attributes["url.query"]).toBeUndefined();
      }
      // Nothing secret and none of the watch's text in any span: names, attributes, events, resources.
      const exported = stubs.otlp.requests
        .filter((r) => r.url === "/v1/traces")
        .map((r) => r.body)
        .join("\n");
      for (const [what, secret] of Object.entries(secrets)) expect(exported, what).not.toContain(secret);
      expect(exported).not.toContain(marker);
      expect(exported).not.toContain(encodeURIComponent(marker));
      expect(exported).not.toContain(marker.replace(/ /g, "+"));
      expect(exported).not.toContain(apiKey);
    },
  );

  it("refuses /metrics to another machine when no token is set", async () => {
    // The shared server: no METRICS_TOKEN, and TRUST_PROXY=1, so the forwarded client is the client.
    expect((await call("GET", "/metrics")).status).toBe(200);
    const remote = await call("GET", "/metrics", { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(remote.status).toBe(403);
  });

  it(
    "shuts down gracefully during a run: ready 503 at once, the run completes, nothing half-written",
    { timeout: 120_000 },
    async () => {
      const { call } = at(server);
      expect((await call("GET", "/api/health/ready")).status).toBe(200);
      const calls = stubs.model.calls();
      const answer = holdAnswer("Shutdown run");
      // Run at once by the create itself (an active watch created otherwise is also due at once: two starts would race).
      const id = (await runNow(call, "Shutdown run")).id;
      // The model's answer (its second call) is held back: the run is in the middle of its agent step.
      await waitFor("the agent step", async () => stubs.model.calls() >= calls + 2);
      server.process.kill("SIGTERM");
      await waitFor("the shutdown", async () => /SIGTERM: shutting down/.test(server.output()));
      const ready = await call("GET", "/api/health/ready");
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: "stopping" });
      expect((await call("GET", "/api/v1/tasks", { auth: apiKey })).status).toBe(503);
      // The process waits for the run: still there while the answer is held, gone with 0 once the run has finished.
      expect(server.process.exitCode).toBeNull();
      answer.release();
      const code = await server.stop();
      expect(code).toBe(0);
      expect(server.output()).not.toMatch(/still under way/);
      expect(server.output()).toMatch(/SIGTERM: shutting down[^]*"msg":"stopped"/);

      // Started with a short grace period, which the next test needs (this one only reads).
      server = await startServer(
        { ...stubbedServiceEnv(stubs), SHUTDOWN_GRACE_MS: "1000", DATABASE_URL: server.databaseUrl },
        { dataDir: server.dataDir },
      );
      const task = (await at(server).call("GET", `/api/v1/tasks/${id}`, { auth: apiKey })).body;
      expect(task.last_execution.status).toBe("success");
      expect(task.last_execution.result.answer).toBeTruthy();
      expect(task.next_run).not.toBeNull();
      const runs = (await at(server).call("GET", `/api/v1/tasks/${id}/executions`, { auth: apiKey })).body;
      expect(runs.map((e: { status: string }) => e.status)).toEqual(["success"]);
    },
  );

  it("leaves a run not finished in the grace period to resume at the next start", { timeout: 150_000 }, async () => {
    // The server the previous test started again, with SHUTDOWN_GRACE_MS=1000.
    const { call } = at(server);
    const calls = stubs.model.calls();
    const answer = holdAnswer("Cut short");
    const id = (await runNow(call, "Cut short")).id;
    await waitFor("the agent step", async () => stubs.model.calls() >= calls + 2);
    // The process ends after its grace period with the model's answer still held back: it did not wait for the run.
    expect(await server.stop()).toBe(0);
    expect(answer.isReleased()).toBe(false);
    expect(server.output()).toMatch(/1 run\(s\) still under way: they resume at the next start/);
    answer.release();

    server = await startServer(
      { ...stubbedServiceEnv(stubs), DATABASE_URL: server.databaseUrl },
      { dataDir: server.dataDir },
    );
    const resumed = await waitFor(
      "the resumed run",
      async () => {
        const r = await at(server).call("GET", `/api/v1/tasks/${id}`, { auth: apiKey });
        return r.body.last_execution?.status === "success" && r.body;
      },
      30_000,
    );
    expect(resumed.last_execution.result.answer).toBeTruthy();
  });
});
