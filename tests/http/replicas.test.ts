/**
 * Two server processes on one PostgreSQL database: every due run happens exactly once, the daily retention job is
 * armed once, and page views counted by each replica add up within seconds (Postgres tier only).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { nextRetentionAt } from "@/server/retention";
import { call } from "../helpers/api";
import { freshDatabaseUrl, startServer } from "../helpers/server";
import { decisionFor, startModelStub, startSearxStub } from "../helpers/stubs/model";
import { waitFor } from "../helpers/wait";

describe.skipIf(!process.env.DATABASE_URL)("two replicas on one PostgreSQL", () => {
  it(
    "runs each due watch once, arms the retention job once, and adds up both replicas' page views",
    { timeout: 240_000 },
    async () => {
      const model = await startModelStub(() => decisionFor({ notify: false, condition_met: false }));
      const searx = await startSearxStub();
      const databaseUrl = (await freshDatabaseUrl())!;
      const env = {
        SERVICE_NOAUTH: "1",
        DATABASE_URL: databaseUrl,
        AGENT_MODEL: "openai-compatible:stub",
        AGENT_BASE_URL: `${model.url}/v1`,
        SEARXNG_URL: searx.url,
      };
      const a = await startServer({ ...env, WATCH_EXECUTOR_ID: "replica-a" });
      const b = await startServer({ ...env, WATCH_EXECUTOR_ID: "replica-b" });
      try {
        const ids: string[] = [];
        for (let i = 0; i < 30; i++) {
          const target = i % 2 ? a : b;
          ids.push(
            (await call("POST", "/api/v1/tasks", { base: target.url, body: { search_query: `replicated ${i}` } })).body
              .id,
          );
        }
        await waitFor(
          "every watch's first run",
          async () => {
            const counts = await Promise.all(
              ids.map(
                async (id) =>
                  (await call("GET", `/api/v1/tasks/${id}/executions`, { base: a.url })).body.filter(
                    (e: any) => e.status === "success",
                  ).length,
              ),
            );
            return counts.every((c) => c >= 1);
          },
          60_000,
        );
        await new Promise((r) => setTimeout(r, 2000));
        const final = await Promise.all(
          ids.map(async (id) => (await call("GET", `/api/v1/tasks/${id}/executions`, { base: b.url })).body.length),
        );
        expect(final).toEqual(ids.map(() => 1));

        const db = new pg.Client({ connectionString: databaseUrl });
        await db.connect();
        const retention = (
          await db.query(`SELECT workflow_uuid, status FROM dbos.workflow_status WHERE name = 'retentionRun'`)
        ).rows;
        await db.end();
        expect(retention).toEqual([
          { workflow_uuid: `retention:${nextRetentionAt(new Date()).getTime()}`, status: "DELAYED" },
        ]);

        // Page views from visitors (not the NOAUTH owner) on both replicas: written in batches, exact within seconds.
        await call("PATCH", "/api/v1/users/me/username", {
          base: a.url,
          body: { username: `rep${Date.now().toString(36)}` },
        });
        expect(
          (await call("PATCH", `/api/v1/tasks/${ids[0]}/visibility`, { base: a.url, body: { is_public: true } }))
            .status,
        ).toBe(200);
        const visit = (base: string) =>
          fetch(`${base}/w/${ids[0]}`, { headers: { authorization: `Bearer sk_${"v".repeat(32)}` } });
        for (const base of [a.url, a.url, a.url, b.url, b.url]) expect((await visit(base)).status).toBe(200);
        await waitFor(
          "both replicas' views",
          async () => (await call("GET", `/api/v1/tasks/${ids[0]}`, { base: a.url })).body.view_count === 5,
          10_000,
        );
      } finally {
        await Promise.all([a.stop(), b.stop(), model.close(), searx.close()]);
      }
    },
  );
});
