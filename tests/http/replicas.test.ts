/** Two server processes on one PostgreSQL database: every due run happens exactly once (Postgres tier only). */
import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { freshDatabaseUrl, startServer } from "../helpers/server";
import { decisionFor, startModelStub, startSearxStub } from "../helpers/stubs/model";
import { waitFor } from "../helpers/wait";

describe.skipIf(!process.env.DATABASE_URL)("two replicas on one PostgreSQL", () => {
  it("runs each due watch once", { timeout: 120_000 }, async () => {
    const model = await startModelStub(() => decisionFor({ notify: false, condition_met: false }));
    const searx = await startSearxStub();
    const databaseUrl = (await freshDatabaseUrl())!;
    const env = { SERVICE_NOAUTH: "1", DATABASE_URL: databaseUrl, AGENT_MODEL: "openai-compatible:stub", AGENT_BASE_URL: `${model.url}/v1`, SEARXNG_URL: searx.url };
    const a = await startServer({ ...env, WATCH_EXECUTOR_ID: "replica-a" });
    const b = await startServer({ ...env, WATCH_EXECUTOR_ID: "replica-b" });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const target = i % 2 ? a : b;
        ids.push((await call("POST", "/api/v1/tasks", { base: target.url, body: { search_query: `replicated ${i}` } })).body.id);
      }
      await waitFor(
        "every watch's first run",
        async () => {
          const counts = await Promise.all(
            ids.map(async (id) => (await call("GET", `/api/v1/tasks/${id}/executions`, { base: a.url })).body.filter((e: any) => e.status === "success").length),
          );
          return counts.every((c) => c >= 1);
        },
        60_000,
      );
      await new Promise((r) => setTimeout(r, 2000));
      const final = await Promise.all(ids.map(async (id) => (await call("GET", `/api/v1/tasks/${id}/executions`, { base: b.url })).body.length));
      expect(final).toEqual(ids.map(() => 1));
    } finally {
      await Promise.all([a.stop(), b.stop(), model.close(), searx.close()]);
    }
  });
});
