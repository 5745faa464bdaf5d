/**
 * A crash in the middle of deliveries (an email and a Slack message in flight), on a real server killed with SIGKILL:
 * each channel at most once, the webhook unaffected, nothing repeated after the restart. The rest of the loop is
 * tested in-process (tests/service/agent-loop.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { startAgain, startServer, type RunningServer } from "../helpers/server";
import { startStubs, type Stubs } from "../helpers/stubs";
import { waitFor } from "../helpers/wait";

let stubs: Stubs;
let server: RunningServer;
const env = () => ({ SERVICE_NOAUTH: "1", ...stubs.servicesEnv() });
const api = (method: string, path: string, body?: unknown) => call(method, path, { base: server.url, body });
/** A Slack incoming webhook's path, on the local receiver. */
const SLACK = "/slack/services/T1/B2/secretSLACK";

beforeAll(async () => {
  stubs = await startStubs();
  server = await startServer(env());
});

afterAll(async () => {
  await server?.stop();
  await stubs?.close();
});

describe("durability", () => {
  it("a crash in the middle of deliveries: email and Slack at most once, the webhook unaffected, nothing repeated after restart", async () => {
    // Resend and Slack take a minute to answer: the process dies while the email and the chat message are in flight.
    stubs.resend.reply(() => ({ json: { id: "email_slow" }, delayMs: 60_000 }));
    stubs.receiver.reply(SLACK, () => ({ status: 200, text: "ok", delayMs: 60_000 }));
    const created = await api("POST", "/api/v1/tasks", {
      search_query: "Postgres 19 rc",
      run_immediately: true,
      notifications: [
        { type: "email", address: "test@localhost" },
        { type: "webhook", url: `${stubs.receiver.url}/crash` },
        { type: "slack", url: `${stubs.receiver.url}${SLACK}` },
      ],
    });
    // The run is recorded; its webhook (a workflow of its own) goes out while the email and Slack hang; the process
    // dies there.
    await waitFor("the email attempt", async () => stubs.resend.emails().length >= 1);
    await waitFor("the Slack attempt", async () => stubs.receiver.to(SLACK).length >= 1);
    // The webhook's answer recorded, not only its request received: a kill between the two would cut it short too.
    await waitFor("the webhook sent", async () =>
      (await api("GET", `/api/v1/notifications/sends?task_id=${created.body.id}`)).body.sends.some(
        (x: { notification_type: string; status: string }) => x.notification_type === "webhook" && x.status === "sent",
      ),
    );
    await server.kill();

    stubs.resend.reply(() => ({ json: { id: `email_${Date.now()}` } }));
    stubs.receiver.reply(SLACK, () => ({ status: 200, text: "ok" }));
    server = await startAgain(server, env());
    await waitFor("the interrupted email settled", async () => {
      const page = (await api("GET", `/api/v1/notifications/sends?task_id=${created.body.id}`)).body;
      return page.total === 3 && page;
    });
    await new Promise((r) => setTimeout(r, 2000)); // recovery has replayed the workflows by now
    expect(stubs.receiver.to("/crash")).toHaveLength(1);
    // The cut-short email and chat message are not sent again through the new server.
    expect(stubs.resend.emails()).toHaveLength(1);
    expect(stubs.receiver.to(SLACK)).toHaveLength(1);
    const runs = (await api("GET", `/api/v1/tasks/${created.body.id}/executions`)).body as { status: string }[];
    expect(runs.filter((e) => e.status === "success")).toHaveLength(1);
    const sends = (await api("GET", `/api/v1/notifications/sends?task_id=${created.body.id}`)).body;
    // The interrupted attempts are recorded and not repeated (they may have gone out); the webhook went out once.
    expect(sends.sends.map((s: any) => `${s.notification_type}:${s.status}:${s.error_message ?? ""}`).sort()).toEqual([
      "email:failed:delivery interrupted",
      "slack:failed:delivery interrupted",
      "webhook:sent:",
    ]);
  }, 120_000);
});
