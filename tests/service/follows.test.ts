/**
 * Following a public watch without forking it: by email with double opt-in and one-click unsubscribe, signed in with
 * one's own channels; findings and retractions reach each follower once, signed with their secret and in their
 * history; the owner sees only the count; a watch made private or deleted loses its follows. The pages the links open
 * are tested on a real server (tests/http/pages.test.ts).
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { uniqueId } from "../helpers/client";
import { mintSessionToken } from "../helpers/clerk";
import { withService } from "../helpers/service";
import { decisionFor } from "../helpers/stubs/model";
import { settledSends, waitFor } from "../helpers/wait";

const app = withService({ SERVICE_NOAUTH: "1" });
const testClerkKeys = async () => app.stubs.clerk.keys;

type Opts = { auth?: string; body?: unknown; headers?: Record<string, string> };
const api = (method: string, path: string, opts: Opts = {}) => app.call(method, path, opts);

async function signIn() {
  const clerkId = uniqueId("user");
  const token = await mintSessionToken(await testClerkKeys(), clerkId);
  const synced = await api("POST", "/auth/sync-user", { auth: token });
  expect(synced.status).toBe(200);
  return { token, id: synced.body.user.id as string, email: synced.body.user.email as string };
}

/** A public watch of the NOAUTH test user (the owner), with its own email and webhook. */
async function publicWatch(query: string) {
  await api("PATCH", "/api/v1/users/me/username", { body: { username: "owner" } });
  const t = (
    await api("POST", "/api/v1/tasks", {
      body: {
        search_query: query,
        state: "paused",
        notifications: [
          { type: "email", address: "test@localhost" },
          { type: "webhook", url: `${app.stubs.receiver.url}/owner` },
        ],
      },
    })
  ).body;
  expect((await api("PATCH", `/api/v1/tasks/${t.id}/visibility`, { body: { is_public: true } })).status).toBe(200);
  return t.id as string;
}

async function runNow(id: string) {
  const started = await api("POST", `/api/v1/tasks/${id}/execute`);
  expect(started.status).toBe(200);
  await waitFor("the run", async () => {
    const [latest] = (await api("GET", `/api/v1/tasks/${id}/executions?limit=1`)).body;
    return latest?.id === started.body.id && latest.status === "success";
  });
  // Deliveries follow the run: wait until the owner's history is settled and has not changed for a second.
  let seen = { total: -1, since: 0 };
  await waitFor("settled deliveries", async () => {
    const page = (await api("GET", `/api/v1/notifications/sends?task_id=${id}&limit=100`)).body;
    if (!settledSends(page, page.total) || page.total !== seen.total) seen = { total: page.total, since: Date.now() };
    return Date.now() - seen.since >= 1500;
  });
  return started.body.id as string;
}

describe("following a public watch", () => {
  it("by email: no enumeration, double opt-in through a page, one notice per follower per finding, one-click unsubscribe", async () => {
    const id = await publicWatch("followed release");
    const follow = (email: string) => api("POST", `/api/v1/public/tasks/id/${id}/follow`, { body: { email } });
    const first = await follow("fan@example.com");
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ message: "Check your inbox to confirm." });
    expect((await follow("FAN@example.com")).body).toEqual(first.body); // the same answer again
    expect(
      (
        await api("POST", "/api/v1/public/tasks/id/00000000-0000-4000-8000-000000000000/follow", {
          body: { email: "a@b.co" },
        })
      ).status,
    ).toBe(404);

    // The link (sent after the answer) opens a page with the button that confirms (tests/http/pages.test.ts): nobody
    // follows yet.
    const confirm = await waitFor("the confirmation", async () =>
      app.stubs.resend.linkIn("fan@example.com", "/follow/confirm"),
    );
    expect(confirm.pathname).toBe("/follow/confirm");
    expect((await api("GET", `/api/v1/tasks/${id}`)).body.subscriber_count).toBe(0);
    const token = confirm.searchParams.get("token");
    expect((await api("POST", "/api/v1/public/follows/confirm", { body: { token } })).body).toEqual({
      task_id: id,
      email: "fan@example.com",
    });
    expect((await api("POST", "/api/v1/public/follows/confirm", { body: { token: "forged.0.x" } })).body).toEqual({
      detail: "Invalid or expired token",
    });

    // A second follower, signed in, with a webhook.
    const member = await signIn();
    const followed = await api("POST", `/api/v1/tasks/${id}/follow`, {
      auth: member.token,
      body: { notifications: [{ type: "webhook", url: `${app.stubs.receiver.url}/member` }] },
    });
    expect(followed.status).toBe(201);
    expect(followed.body).toMatchObject({
      task_id: id,
      notifications: [{ type: "webhook", url: `${app.stubs.receiver.url}/member`, method: "POST", headers: {} }],
    });
    const view = (await api("GET", `/api/v1/tasks/${id}`)).body;
    expect(view.subscriber_count).toBe(2);
    expect(JSON.stringify(view)).not.toContain("fan@example.com");

    app.stubs.model.answer(
      "followed release",
      decisionFor({ finding_key: "followed-1", notification: { title: "Released", markdown: "It is out." } }),
    );
    const run = await runNow(id);
    await runNow(id); // the same finding again: nobody hears twice
    await waitFor("the member's webhook", async () => app.stubs.receiver.to("/member").length > 0);
    await new Promise((r) => setTimeout(r, 1000));

    const fanMail = app.stubs.resend.emails().filter((m) => m.to === "fan@example.com" && m.subject === "Released");
    expect(fanMail).toHaveLength(1);
    expect(fanMail[0].headers).toMatchObject({ "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" });
    expect(fanMail[0].headers["List-Unsubscribe"]).toMatch(/^<https?:\/\/[^>]+\/unsubscribe\/one-click\?token=/);
    expect(fanMail[0].html).toContain("Unsubscribe");
    expect(app.stubs.resend.emails().filter((m) => m.to === "test@localhost" && m.subject === "Released")).toHaveLength(
      1,
    );
    const hooks = app.stubs.receiver.to("/member");
    expect(hooks).toHaveLength(1);
    const { secret } = (await api("GET", "/api/v1/webhooks/secret", { auth: member.token })).body;
    const event = new Webhook(secret).verify(hooks[0]!.body, hooks[0]!.headers as Record<string, string>) as any;
    expect(event).toMatchObject({ type: "task.condition_met", data: { task: { id }, execution: { id: run } } });
    expect(event.data.execution.result.model).toBeUndefined(); // a follower sees the public view
    expect(app.stubs.receiver.to("/owner")).toHaveLength(1);

    // In the member's history, not the owner's.
    const memberSends = (await api("GET", "/api/v1/notifications/sends", { auth: member.token })).body;
    expect(
      memberSends.sends.map((s: { event: string; notification_type: string; status: string }) => [
        s.event,
        s.notification_type,
        s.status,
      ]),
    ).toEqual([["task.condition_met", "webhook", "sent"]]);
    const ownerSends = (await api("GET", `/api/v1/notifications/sends?task_id=${id}&event=task.condition_met`)).body;
    expect(ownerSends.sends.map((s: { recipient: string }) => s.recipient).sort()).toEqual([
      `${app.stubs.receiver.url}/owner`,
      "test@localhost",
    ]);

    // One click (RFC 8058) ends the email follow.
    const unsubscribe = new RegExp(`<([^>]+)>`).exec(fanMail[0].headers["List-Unsubscribe"])![1]!;
    const oneClick = await app.fetch(unsubscribe, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.status).toBe(200);
    expect((await api("GET", `/api/v1/tasks/${id}`)).body.subscriber_count).toBe(1);
    app.stubs.model.answer(
      "followed release",
      decisionFor({ finding_key: "followed-2", notification: { title: "Released again", markdown: "Now 2." } }),
    );
    await runNow(id);
    await waitFor("the member's second webhook", async () => app.stubs.receiver.to("/member").length === 2);
    expect(
      app.stubs.resend.emails().filter((m) => m.to === "fan@example.com" && m.subject === "Released again"),
    ).toHaveLength(0);
    // The email's visible link opens the unsubscribe page (tests/http/pages.test.ts), whose button posts this.
    expect(
      (
        await api("POST", "/api/v1/public/follows/unsubscribe", {
          body: { token: new URL(unsubscribe).searchParams.get("token") },
        })
      ).status,
    ).toBe(200);
  });

  it("signed in: change channels (200), list, unfollow (204); not your own watch; private stops every follow", async () => {
    const id = await publicWatch("signed-in follows");
    const member = await signIn();
    const follow = (notifications: unknown[]) =>
      api("POST", `/api/v1/tasks/${id}/follow`, { auth: member.token, body: { notifications } });
    expect((await follow([{ type: "email", address: member.email }])).status).toBe(201);
    const changed = await follow([{ type: "webhook", url: `${app.stubs.receiver.url}/changed` }]);
    expect(changed.status).toBe(200);
    expect(changed.body.notifications).toEqual([
      { type: "webhook", url: `${app.stubs.receiver.url}/changed`, method: "POST", headers: {} },
    ]);
    expect((await follow([{ type: "sms" }])).status).toBe(400);
    const list = (await api("GET", "/api/v1/follows", { auth: member.token })).body;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ task: { id, user_id: null, notifications: [], owner: { username: "owner" } } });
    expect((await api("GET", `/api/v1/tasks/${id}`)).body.subscriber_count).toBe(1);

    expect((await api("POST", `/api/v1/tasks/${id}/follow`, { body: { notifications: [] } })).body).toEqual({
      detail: "You own this task",
    });
    expect((await api("DELETE", `/api/v1/tasks/${id}/follow`, { auth: member.token })).status).toBe(204);
    expect((await api("GET", "/api/v1/follows", { auth: member.token })).body).toEqual([]);
    expect((await api("GET", `/api/v1/tasks/${id}`)).body.subscriber_count).toBe(0);

    await follow([]);
    await api("POST", `/api/v1/public/tasks/id/${id}/follow`, { body: { email: "private@example.com" } });
    expect((await api("PATCH", `/api/v1/tasks/${id}/visibility`, { body: { is_public: false } })).status).toBe(200);
    expect((await api("GET", "/api/v1/follows", { auth: member.token })).body).toEqual([]);
    expect((await api("GET", `/api/v1/tasks/${id}`)).body.subscriber_count).toBe(0);
    expect((await follow([])).status).toBe(404);
    expect(
      (await api("POST", `/api/v1/public/tasks/id/${id}/follow`, { body: { email: "x@example.com" } })).status,
    ).toBe(404);
  });
});
