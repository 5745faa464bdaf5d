/**
 * GET /metrics on the shared server (no METRICS_TOKEN: served to this machine only): the families operators scrape, with
 * their types and labels, read with an exposition-format parser after a request and a run.
 */
import { describe, expect, it } from "vitest";
import { call, createTask, newApiKeyUser } from "../helpers/api";
import { parseExposition, sampleValue } from "../helpers/prometheus";
import { waitFor } from "../helpers/wait";

async function scrape() {
  const r = await call("GET", "/metrics");
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(r.text);
}

describe("GET /metrics", () => {
  it("names every family with its type, default process metrics included", async () => {
    const families = await scrape();
    const types = Object.fromEntries([...families.values()].map((f) => [f.name, f.type]));
    expect(types).toMatchObject({
      watch_http_requests_total: "counter",
      watch_http_request_duration_seconds: "histogram",
      watch_runs_total: "counter",
      watch_run_duration_seconds: "histogram",
      watch_run_start_delay_seconds: "histogram",
      watch_runs_due_waiting: "gauge",
      watch_deliveries_total: "counter",
      watch_model_tokens_total: "counter",
      process_cpu_seconds_total: "counter",
      process_resident_memory_bytes: "gauge",
      nodejs_eventloop_lag_seconds: "gauge",
    });
    expect(sampleValue(families, "watch_runs_due_waiting")).toBeGreaterThanOrEqual(0);
  });

  it("labels requests by route template, method and status", async () => {
    const user = await newApiKeyUser();
    const task = await createTask(user.apiKey);
    // A route no other file asks the shared server for, so its count moves only with this test's request.
    const route = { route: "/api/v1/tasks/{id}/history", method: "GET", status: "200" };
    const before = sampleValue(await scrape(), "watch_http_requests_total", route);
    expect((await call("GET", `/api/v1/tasks/${task.id}/history`, { auth: user.apiKey })).status).toBe(200);
    expect((await call("GET", `/api/v1/tasks/${crypto.randomUUID()}/history`, { auth: user.apiKey })).status).toBe(404);
    expect((await call("GET", `/w/${task.id}`)).status).toBe(404);
    expect((await call("GET", `/no/such/${crypto.randomUUID()}`)).status).toBe(404);

    const families = await scrape();
    expect(sampleValue(families, "watch_http_requests_total", route)).toBe(before + 1);
    expect(sampleValue(families, "watch_http_requests_total", { ...route, status: "404" })).toBeGreaterThanOrEqual(1);
    // Pages by their template, unknown paths as one label: the label set stays bounded whatever clients send.
    expect(
      sampleValue(families, "watch_http_requests_total", { route: "/w/[id]", status: "404" }),
    ).toBeGreaterThanOrEqual(1);
    const routes = new Set(families.get("watch_http_requests_total")!.samples.map((s) => s.labels.route));
    expect([...routes].some((r) => r!.includes(task.id))).toBe(false);
    expect(routes).toContain("unmatched");
    const histogram = families.get("watch_http_request_duration_seconds")!;
    const count = histogram.samples.find(
      (s) => s.name === "watch_http_request_duration_seconds_count" && s.labels.route === route.route,
    );
    expect(count?.value).toBeGreaterThanOrEqual(1);
    expect(histogram.samples.some((s) => s.labels.le === "+Inf" && s.labels.route === route.route)).toBe(true);
  });

  it("counts a run by its outcome, with its duration", async () => {
    const user = await newApiKeyUser();
    const runs = (families: Awaited<ReturnType<typeof scrape>>) =>
      (families.get("watch_runs_total")?.samples ?? []).reduce((n, s) => n + s.value, 0);
    const before = await scrape();
    const durationsBefore = sampleValue(before, "watch_run_duration_seconds_count");
    // A new watch runs at once (on the stub model, or failing where none answers): either way one run is counted.
    const task = await createTask(user.apiKey, { run_immediately: true });
    const outcome = await waitFor(
      "the run's end",
      async () => {
        const r = await call("GET", `/api/v1/tasks/${task.id}`, { auth: user.apiKey });
        const status = r.body.last_execution?.status as string | undefined;
        return status === "success" || status === "failed" ? status : undefined;
      },
      60_000,
    );
    const after = await scrape();
    expect(runs(after)).toBeGreaterThanOrEqual(runs(before) + 1);
    expect(sampleValue(after, "watch_runs_total", { outcome })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, "watch_run_duration_seconds_count")).toBeGreaterThanOrEqual(durationsBefore + 1);
  });

  it("is not served to another machine without METRICS_TOKEN", async () => {
    // The shared server trusts one proxy: a request forwarded for another address comes from another machine.
    const r = await call("GET", "/metrics", { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(r.status).toBe(403);
  });
});
