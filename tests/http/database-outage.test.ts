/**
 * The database goes away under a running server and comes back: requests meanwhile get 503 with Retry-After (never
 * a 500, nothing half-written), a run caught in the middle finishes and re-arms its watch, and afterwards the API and
 * the scheduler carry on without a restart. Needs its own
 * PostgreSQL cluster to stop (Debian's postgresql, run as root, as in CI's second tier); skipped where there is none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canRunThrowawayPostgres, throwawayPostgres } from "../helpers/postgres.mjs";
import { call } from "../helpers/api";
import { startServer, type RunningServer } from "../helpers/server";
import { startModelStub, startSearxStub } from "../helpers/stubs/model";
import { waitFor } from "../helpers/wait";

describe.skipIf(!canRunThrowawayPostgres())("a database outage", () => {
  let cluster: Awaited<ReturnType<typeof throwawayPostgres>>;
  let model: Awaited<ReturnType<typeof startModelStub>>;
  let searx: Awaited<ReturnType<typeof startSearxStub>>;
  let server: RunningServer;
  const api = (method: string, path: string, body?: unknown) => call(method, path, { base: server.url, body });
  const succeeded = async (id: string) =>
    ((await api("GET", `/api/v1/tasks/${id}/executions`)).body as { status: string }[]).filter(
      (e) => e.status === "success",
    ).length;

  beforeAll(async () => {
    // The model answers after a moment, so the database can go away while a run waits for it.
    [cluster, model, searx] = await Promise.all([
      throwawayPostgres(),
      startModelStub(undefined, { answerDelayMs: 1500 }),
      startSearxStub(),
    ]);
    server = await startServer({
      DATABASE_URL: cluster.url,
      SERVICE_NOAUTH: "1",
      AGENT_MODEL: "openai-compatible:stub",
      AGENT_BASE_URL: `${model.url}/v1`,
      SEARXNG_URL: searx.url,
    });
  });
  afterAll(async () => {
    await server?.stop();
    cluster?.remove();
    await Promise.all([model?.close(), searx?.close()]);
  });

  it("answers 503 while the database is down, then carries on", async () => {
    const created = await api("POST", "/api/v1/tasks", { search_query: "outage test", run_immediately: true });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    await waitFor("the first run", async () => (await succeeded(id)) === 1);

    cluster.stop();
    for (const [method, path, body] of [
      ["GET", "/api/v1/tasks"],
      ["GET", `/api/v1/tasks/${id}`],
      ["POST", "/api/v1/tasks", { search_query: "written during the outage" }],
      ["POST", `/api/v1/tasks/${id}/execute`],
      ["GET", `/api/v1/public/tasks/id/${id}/rss`],
      ["GET", `/api/v1/public/tasks/id/${id}/feed.json`],
      ["GET", `/api/v1/public/tasks/id/${id}/badge.svg`],
    ] as const) {
      const res = await api(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(503);
      expect(res.body).toEqual({
        detail: "Service temporarily unavailable: the database cannot be reached. Try again shortly.",
      });
      expect(res.headers.get("retry-after")).toBe("5");
    }
    const health = await api("GET", "/api/health");
    expect(health.status).toBe(503);
    // The driver's error text (host, port, user) stays in the server's log.
    expect(health.body).toMatchObject({ status: "degraded", database: "unreachable" });

    cluster.start();
    await waitFor("the database to be reachable again", async () => (await api("GET", "/api/health")).status === 200);
    const list = await api("GET", "/api/v1/tasks");
    expect(list.status).toBe(200);
    expect(list.body.map((t: { search_query: string }) => t.search_query)).toEqual(["outage test"]);
    expect((await api("POST", `/api/v1/tasks/${id}/execute`)).status).toBe(200);
    await waitFor("a run after the outage", async () => (await succeeded(id)) === 2, 30_000);
    expect(server.process.exitCode).toBeNull();
    expect(server.output()).not.toMatch(/Internal Server Error|⨯/);
  });

  it("finishes a run caught by the outage and re-arms its watch", async () => {
    const calls = model.calls();
    const created = await api("POST", "/api/v1/tasks", { search_query: "caught mid-run", run_immediately: true });
    const id = created.body.id as string;
    await waitFor("the model's answer to be under way", async () => model.calls() >= calls + 2);
    cluster.stop();
    await new Promise((r) => setTimeout(r, 3000)); // the answer arrives; recording it finds no database
    cluster.start();
    await waitFor("the run to be recorded", async () => (await succeeded(id)) === 1, 60_000);
    const task = (await api("GET", `/api/v1/tasks/${id}`)).body;
    expect(task.state).toBe("active");
    expect(new Date(task.next_run).getTime()).toBeGreaterThan(Date.now() + 3_600_000);
  });
});
