/**
 * "Send it anyway": the owner sends a finding the watch's bounds held back. It is notified once (the watch's channels
 * and its followers, as a run that cleared the gate would have), only from `held`, only by its owner, and from then on
 * public like any notified finding (and not before).
 */
import { describe, expect, it } from "vitest";
import { mintSessionToken } from "../helpers/clerk";
import { withService } from "../helpers/service";
import { decisionFor } from "../helpers/stubs/model";
import { settledSends, waitFor } from "../helpers/wait";
import { uniqueId } from "../helpers/client";

const app = withService({ SERVICE_NOAUTH: "1" });

type Opts = { auth?: string; body?: unknown };
const api = (method: string, path: string, opts: Opts = {}) => app.call(method, path, opts);

const sendsOf = async (taskId: string) =>
  (await api("GET", `/api/v1/notifications/sends?task_id=${taskId}&limit=100`)).body;

/** Waits until the owner's history holds `n` settled sends and has not changed for a second. */
async function settled(taskId: string, n: number) {
  let seen = { total: -1, since: 0 };
  await waitFor("settled deliveries", async () => {
    const page = await sendsOf(taskId);
    if (!settledSends(page, n) || page.total !== seen.total) seen = { total: page.total, since: Date.now() };
    return page.total >= n && Date.now() - seen.since >= 1000;
  });
  return (await sendsOf(taskId)).sends as { event: string; notification_type: string; execution_id: string }[];
}

async function signIn() {
  const token = await mintSessionToken(app.stubs.clerk.keys, uniqueId("user"));
  expect((await api("POST", "/auth/sync-user", { auth: token })).status).toBe(200);
  return token;
}

describe("send it anyway", () => {
  it("sends a held finding once, to the watch's channels and followers, and makes it public only then", async () => {
    await api("PATCH", "/api/v1/users/me/username", { body: { username: `anyway${Date.now().toString(36)}` } });
    const created = await api("POST", "/api/v1/tasks", {
      body: {
        search_query: "held release",
        state: "paused",
        min_sources: 2,
        notifications: [
          { type: "email", address: "test@localhost" },
          { type: "webhook", url: `${app.stubs.receiver.url}/owner` },
        ],
      },
    });
    const id = created.body.id as string;
    expect((await api("PATCH", `/api/v1/tasks/${id}/visibility`, { body: { is_public: true } })).status).toBe(200);
    const member = await signIn();
    const follow = await api("POST", `/api/v1/tasks/${id}/follow`, {
      auth: member,
      body: { notifications: [{ type: "webhook", url: `${app.stubs.receiver.url}/member` }] },
    });
    expect(follow.status).toBe(201);

    app.stubs.model.answer(
      "held release",
      decisionFor({ finding_key: "held-1", notification: { title: "Held release", markdown: "It is out." } }),
    );
    const started = await api("POST", `/api/v1/tasks/${id}/execute`);
    const run = await waitFor("the run", async () => {
      const [latest] = (await api("GET", `/api/v1/tasks/${id}/executions?limit=1`)).body;
      return latest?.id === started.body.id && latest.status === "success" && latest;
    });
    expect(run.result.gate).toEqual({ passed: false, reason: "1 independent source, 2 required" });
    const key = encodeURIComponent("held-1");

    // Held: the owner's alone.
    expect((await api("GET", `/api/v1/tasks/${id}`)).body.verdict.state).toBe("held");
    const before = (await api("GET", `/api/v1/public/tasks/id/${id}`)).body;
    expect(before).toMatchObject({ last_execution: null, latest_answer: null, resolution: { status: "watching" } });
    expect((await api("GET", `/api/v1/public/tasks/id/${id}/findings`)).body).toEqual([]);
    expect(await app.fetch(`/api/v1/public/tasks/id/${id}/rss`).then((r) => r.text())).not.toContain("Held release");

    // Someone else's watch, an unknown one, an unknown finding.
    expect((await api("POST", `/api/v1/tasks/${id}/findings/${key}/send`, { auth: member })).body).toEqual({
      detail: "Task not found",
    });
    const unknownTask = await api("POST", `/api/v1/tasks/${crypto.randomUUID()}/findings/${key}/send`);
    expect([unknownTask.status, unknownTask.body]).toEqual([404, { detail: "Task not found" }]);
    const unknown = await api("POST", `/api/v1/tasks/${id}/findings/nothing-such/send`);
    expect([unknown.status, unknown.body]).toEqual([404, { detail: "Finding not found" }]);
    expect((await sendsOf(id)).total).toBe(0);

    // A double click: one is sent, the other answers 409.
    const [a, b] = await Promise.all([
      api("POST", `/api/v1/tasks/${id}/findings/${key}/send`),
      api("POST", `/api/v1/tasks/${id}/findings/${key}/send`),
    ]);
    const [ok, refused] = a.status === 202 ? [a, b] : [b, a];
    expect(ok.status).toBe(202);
    expect(ok.body).toMatchObject({ key: "held-1", title: "Held release", status: "notified", gate_reason: null });
    expect([refused.status, refused.body]).toEqual([409, { detail: "This finding was sent already" }]);

    const sends = await settled(id, 2);
    expect(sends.map((s) => `${s.event}:${s.notification_type}:${s.execution_id}`).sort()).toEqual([
      `task.condition_met:email:${run.id}`,
      `task.condition_met:webhook:${run.id}`,
    ]);
    await waitFor("the follower's webhook", async () => app.stubs.receiver.to("/member").length > 0);
    await new Promise((r) => setTimeout(r, 1000));
    const hooks = app.stubs.receiver.to("/owner");
    expect(hooks.map((h) => JSON.parse(h.body).type)).toEqual(["task.condition_met"]);
    expect(JSON.parse(hooks[0]!.body).data.execution).toMatchObject({
      id: run.id,
      notification: { title: "Held release", markdown: run.result.answer },
    });
    expect(app.stubs.receiver.to("/member")).toHaveLength(1);
    expect(app.stubs.resend.emails().filter((m) => m.subject === "Held release")).toHaveLength(1);

    // Again, later: still 409, nothing more sent.
    const again = await api("POST", `/api/v1/tasks/${id}/findings/${key}/send`);
    expect([again.status, again.body]).toEqual([409, { detail: "This finding was sent already" }]);

    // Now it is the watch's answer, for the owner and in public.
    const owner = (await api("GET", `/api/v1/tasks/${id}`)).body;
    expect(owner).toMatchObject({ verdict: { state: "met", reason: null }, resolution: { status: "met" } });
    const after = (await api("GET", `/api/v1/public/tasks/id/${id}`)).body;
    expect(after).toMatchObject({
      last_execution: { id: run.id, notification: { title: "Held release" } },
      latest_answer: "PostgreSQL 19 Beta 1 was released today.",
      resolution: { status: "met" },
      verdict: { state: "met" },
    });
    expect((await api("GET", `/api/v1/public/tasks/id/${id}/findings`)).body).toMatchObject([
      { key: "held-1", status: "notified" },
    ]);
    expect(await app.fetch(`/api/v1/public/tasks/id/${id}/rss`).then((r) => r.text())).toContain("Held release");
    expect((await api("GET", `/api/v1/tasks/${id}/executions?limit=1`)).body[0]).toMatchObject({
      id: run.id,
      result: { gate: { passed: false } },
      notification: { title: "Held release" },
    });
  });
});
