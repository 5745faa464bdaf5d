/** Watches through the REST API: create, list, get, update, delete, visibility, fork, run now, history, sends. */
import { describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { withService } from "../helpers/service";

// No model: runs fail at once, so nothing is found and no run stays open for long.
const { call, createTask, newApiKeyUser, newUser } = withService({ AGENT_MODEL: undefined, AGENT_BASE_URL: undefined });

const MISSING = "00000000-0000-4000-8000-000000000000";

describe("create", () => {
  it("applies the defaults and answers 200 with immediate_execution_error", async () => {
    const u = await newUser();
    const r = await call("POST", "/api/v1/tasks", { auth: u.token, body: { search_query: "iPhone 18 release date" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(r.body).toMatchObject({
      name: "New Monitor",
      search_query: "iPhone 18 release date",
      condition_description: "iPhone 18 release date",
      state: "active",
      is_public: false,
      view_count: 0,
      subscriber_count: 0,
      forked_from_task_id: null,
      last_execution: null,
      notifications: [],
      notification_email: null,
      webhook_url: null,
      updated_at: null,
      immediate_execution_error: null,
      user_id: u.id,
    });
    expect(Math.abs(new Date(r.body.next_run).getTime() - Date.now())).toBeLessThan(60_000);
  });

  it("creates paused watches without a next run; completed is not a starting state", async () => {
    const u = await newUser();
    const paused = await createTask(u.token, { state: "paused" });
    expect(paused).toMatchObject({ state: "paused", next_run: null });
    const completed = await call("POST", "/api/v1/tasks", {
      auth: u.token,
      body: { search_query: "x", state: "completed" },
    });
    expect(completed.status).toBe(422);
    expect(completed.body.detail[0]).toMatchObject({ type: "enum", loc: ["body", "state"], input: "completed" });
  });

  it("answers 500, never the client's 422, when a stored row does not fit the answer's shape", async () => {
    const u = await newUser();
    const t = await createTask(u.token, { search_query: "odd row", state: "paused" });
    const run = await db.execution.create({
      data: { task_id: t.id, status: "success", condition_met: false, result: { answer: 5 } },
    });
    await db.task.update({ where: { id: t.id }, data: { last_execution_id: run.id } });
    const r = await call("GET", `/api/v1/tasks/${t.id}`, { auth: u.token });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ detail: "Internal Server Error" });
  });

  it("rejects bad input with the 422 list", async () => {
    const u = await newUser();
    const r = await call("POST", "/api/v1/tasks", {
      auth: u.token,
      body: { name: 5, run_immediately: "yes", schedule: "0 * * * *" },
    });
    expect(r.status).toBe(422);
    const byLoc = Object.fromEntries(r.body.detail.map((d: any) => [d.loc.join("."), d]));
    expect(byLoc["body.search_query"]).toMatchObject({ type: "missing", msg: "Field required" });
    expect(byLoc["body.name"]).toMatchObject({ type: "string_type", input: 5 });
    expect(byLoc["body.run_immediately"]).toMatchObject({ type: "bool_type", input: "yes" });
    expect(byLoc["body.schedule"]).toMatchObject({ type: "extra_forbidden" });
    expect(Object.keys(r.body)).toEqual(["detail"]);
  });

  it("validates notifications with 400s and derives the address fields", async () => {
    const u = await newUser();
    const ok = await createTask(u.token, {
      notifications: [
        { type: "email", address: "Me@Example.com" },
        { type: "webhook", url: "https://hooks.example.com/x", headers: { "x-a": "1" } },
      ],
    });
    expect(ok.notification_email).toBe("me@example.com");
    expect(ok.webhook_url).toBe("https://hooks.example.com/x");
    expect(ok.notifications).toContainEqual({
      type: "webhook",
      url: "https://hooks.example.com/x",
      method: "POST",
      headers: { "x-a": "1" },
    });

    const dup = await call("POST", "/api/v1/tasks", {
      auth: u.token,
      body: {
        search_query: "x",
        notifications: [
          { type: "email", address: "a@b.co" },
          { type: "email", address: "c@d.co" },
        ],
      },
    });
    expect(dup).toMatchObject({
      status: 400,
      body: {
        detail:
          "Multiple notifications of the same type are not supported. Please provide at most one email and one webhook notification.",
      },
    });
    for (const bad of [
      { type: "sms", to: "1" },
      { type: "email", address: "not-an-email" },
      { type: "webhook", url: "not a url" },
      { type: "webhook", url: "https://x.example.com", method: "GET" },
      { type: "webhook", url: "https://x.example.com", headers: { "webhook-signature": "forged" } },
    ]) {
      const r = await call("POST", "/api/v1/tasks", {
        auth: u.token,
        body: { search_query: "x", notifications: [bad] },
      });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.detail).toMatch(/^Invalid notification: /);
    }
    const notArray = await call("POST", "/api/v1/tasks", {
      auth: u.token,
      body: { search_query: "x", notifications: "email" },
    });
    expect(notArray.status).toBe(422);
    const list = await call("GET", "/api/v1/tasks", { auth: u.token });
    expect(list.body).toHaveLength(1); // nothing half-written by the rejected requests
  });
});

describe("list and get", () => {
  it("lists only the caller's watches, filters by state, omits immediate_execution_error", async () => {
    const u = await newUser();
    const other = await newUser();
    await createTask(u.token, { name: "a" });
    await createTask(u.token, { name: "b", state: "paused" });
    await createTask(other.token, { name: "theirs" });
    const all = await call("GET", "/api/v1/tasks", { auth: u.token });
    expect(all.status).toBe(200);
    expect(all.body.map((t: any) => t.name).sort()).toEqual(["a", "b"]);
    expect(all.body[0]).not.toHaveProperty("immediate_execution_error");
    const paused = await call("GET", "/api/v1/tasks?state=paused", { auth: u.token });
    expect(paused.body.map((t: any) => t.name)).toEqual(["b"]);
    const bad = await call("GET", "/api/v1/tasks?state=done", { auth: u.token });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["query", "state"]);
  });

  it("hides private watches from others (404) and scrubs public ones", async () => {
    const owner = await newUser(undefined, { username: `own${Date.now().toString(36)}` });
    const other = await newUser();
    const t = await createTask(owner.token, { notifications: [{ type: "email", address: "o@example.com" }] });
    expect((await call("GET", `/api/v1/tasks/${t.id}`, { auth: other.token })).body).toEqual({
      detail: "Task not found",
    });
    expect((await call("GET", `/api/v1/tasks/${t.id}`, { auth: other.token })).status).toBe(404);
    await call("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    const seen = await call("GET", `/api/v1/tasks/${t.id}`, { auth: other.token });
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({
      user_id: null,
      notifications: [],
      notification_email: null,
      webhook_url: null,
      last_known_state: null,
    });
    expect(seen.body.owner.username).toMatch(/^own/);
    const own = await call("GET", `/api/v1/tasks/${t.id}`, { auth: owner.token });
    expect(own.body.notification_email).toBe("o@example.com");
  });

  it("answers malformed and unknown ids", async () => {
    const u = await newUser();
    const malformed = await call("GET", "/api/v1/tasks/not-a-uuid", { auth: u.token });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "id"], input: "not-a-uuid" });
    expect((await call("GET", `/api/v1/tasks/${MISSING}`, { auth: u.token })).status).toBe(404);
  });
});

describe("update", () => {
  it("changes only the given fields and follows the state machine", async () => {
    const u = await newUser();
    const t = await createTask(u.token, { name: "orig", condition_description: "cond" });
    const renamed = await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { name: "renamed" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: "renamed",
      condition_description: "cond",
      search_query: t.search_query,
      state: "active",
    });
    expect(renamed.body.updated_at).not.toBeNull();

    const paused = await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { state: "paused" } });
    expect(paused.body).toMatchObject({ state: "paused", next_run: null });
    expect(paused.body.state_changed_at > t.state_changed_at).toBe(true);
    const invalid = await call("PUT", `/api/v1/tasks/${t.id}`, {
      auth: u.token,
      body: { state: "completed", name: "never" },
    });
    expect(invalid).toMatchObject({ status: 400, body: { detail: "Invalid state transition: paused -> completed" } });
    expect((await call("GET", `/api/v1/tasks/${t.id}`, { auth: u.token })).body.name).toBe("renamed");

    const active = await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { state: "active" } });
    expect(active.body.next_run).not.toBeNull();
    const completed = await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { state: "completed" } });
    expect(completed.body).toMatchObject({ state: "completed", next_run: null });
    const reopened = await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { state: "active" } });
    expect(reopened.body.state).toBe("active");
  });

  it("replaces notifications, rejects bad values and other users", async () => {
    const u = await newUser();
    const other = await newUser();
    const t = await createTask(u.token, { notifications: [{ type: "email", address: "a@example.com" }] });
    const r = await call("PUT", `/api/v1/tasks/${t.id}`, {
      auth: u.token,
      body: { notifications: [{ type: "webhook", url: "https://h.example.com" }] },
    });
    expect(r.body).toMatchObject({ notification_email: null, webhook_url: "https://h.example.com" });
    expect((await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { state: "done" } })).status).toBe(422);
    expect(
      (await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { next_run: "2030-01-01T00:00:00Z" } }))
        .status,
    ).toBe(422);
    expect((await call("PUT", `/api/v1/tasks/${t.id}`, { auth: other.token, body: { name: "mine" } })).status).toBe(
      404,
    );
  });
});

describe("delete", () => {
  it("answers 204 without a body, then 404", async () => {
    const u = await newUser();
    const t = await createTask(u.token);
    const r = await call("DELETE", `/api/v1/tasks/${t.id}`, { auth: u.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(r.headers.get("content-type")).toBeNull();
    expect((await call("GET", `/api/v1/tasks/${t.id}`, { auth: u.token })).status).toBe(404);
    expect((await call("DELETE", `/api/v1/tasks/${t.id}`, { auth: u.token })).status).toBe(404);
  });
});

describe("visibility and fork", () => {
  it("requires a username to publish", async () => {
    const u = await newUser();
    const t = await createTask(u.token);
    const r = await call("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: u.token, body: { is_public: true } });
    expect(r).toMatchObject({ status: 400, body: { detail: "You must set a username before making tasks public" } });
    await call("PATCH", "/api/v1/users/me/username", {
      auth: u.token,
      body: { username: `pub${Date.now().toString(36)}` },
    });
    const ok = await call("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: u.token, body: { is_public: true } });
    expect(ok).toMatchObject({ status: 200, body: { is_public: true } });
    const other = await newUser();
    expect(
      (await call("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: other.token, body: { is_public: false } }))
        .status,
    ).toBe(404);
  });

  it("forks: only public or own watches, paused, private, without the owner's channels, counted as subscribers", async () => {
    const owner = await newUser(undefined, { username: `fk${Date.now().toString(36)}` });
    const other = await newUser();
    const t = await createTask(owner.token, {
      name: "Source",
      condition_description: "cond",
      notifications: [{ type: "email", address: "owner@example.com" }],
    });
    expect((await call("POST", `/api/v1/tasks/${t.id}/fork`, { auth: other.token })).status).toBe(404); // private
    const own = await call("POST", `/api/v1/tasks/${t.id}/fork`, { auth: owner.token });
    expect(own.body).toMatchObject({
      name: "Source (Copy)",
      state: "paused",
      is_public: false,
      forked_from_task_id: t.id,
      notification_email: "owner@example.com",
    });

    await call("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    const theirs = await call("POST", `/api/v1/tasks/${t.id}/fork`, { auth: other.token, body: { name: "Mine" } });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({
      name: "Mine",
      user_id: other.id,
      search_query: t.search_query,
      condition_description: "cond",
      state: "paused",
      next_run: null,
      is_public: false,
      notifications: [],
      forked_from_task_id: t.id,
    });
    const again = await call("POST", `/api/v1/tasks/${t.id}/fork`, { auth: other.token, body: { name: "Mine" } });
    expect(again.status).toBe(200); // two watches may share a name
    const source = await call("GET", `/api/v1/tasks/${t.id}`, { auth: owner.token });
    expect(source.body.subscriber_count).toBe(1); // one user holding two forks counts once
    expect((await call("POST", `/api/v1/tasks/${MISSING}/fork`, { auth: other.token })).status).toBe(404);
  });
});

describe("execute and history", () => {
  it("starts a pending execution, answers 409 while it is open, and overrides with force", async () => {
    const u = await newUser();
    const t = await createTask(u.token, { state: "paused" });
    const first = await call("POST", `/api/v1/tasks/${t.id}/execute`, { auth: u.token });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ task_id: t.id, status: "pending", completed_at: null, result: null });
    const second = await call("POST", `/api/v1/tasks/${t.id}/execute`, { auth: u.token });
    // The run may already have finished (no model is configured here, so it fails fast): 409 only while open.
    if (second.status === 409)
      expect(second.body).toEqual({ detail: "Task is already running or pending. Use force=true to override." });
    const forced = await call("POST", `/api/v1/tasks/${t.id}/execute?force=true`, { auth: u.token });
    expect(forced.status).toBe(200);
    const history = await call("GET", `/api/v1/tasks/${t.id}/executions`, { auth: u.token });
    expect(history.status).toBe(200);
    expect(history.body[0].id).toBe(forced.body.id);
    expect(history.body.length).toBeGreaterThanOrEqual(2);
    const got = await call("GET", `/api/v1/tasks/${t.id}`, { auth: u.token });
    expect(got.body.last_execution_id).toBe(forced.body.id);
    expect((await call("GET", `/api/v1/tasks/${t.id}/executions?limit=0`, { auth: u.token })).status).toBe(422);
    expect(
      (await call("GET", `/api/v1/tasks/${t.id}/executions?limit=501`, { auth: u.token })).body.detail[0].loc,
    ).toEqual(["query", "limit"]);
    expect(
      (await call("GET", `/api/v1/tasks/${t.id}/executions?status=running&limit=500`, { auth: u.token })).status,
    ).toBe(200);
    expect((await call("GET", `/api/v1/tasks/${t.id}/notifications`, { auth: u.token })).body).toEqual([]);
    const other = await newUser();
    expect((await call("POST", `/api/v1/tasks/${t.id}/execute`, { auth: other.token })).status).toBe(404);
    expect((await call("GET", `/api/v1/tasks/${t.id}/executions`, { auth: other.token })).status).toBe(404);
  });

  it("reports a run that cannot start in immediate_execution_error only on create", async () => {
    const u = await newApiKeyUser();
    const r = await call("POST", "/api/v1/tasks", {
      auth: u.apiKey,
      body: { search_query: "x", run_immediately: true },
    });
    expect(r.status).toBe(200);
    expect(r.body.immediate_execution_error).toBeNull();
    expect(r.body.last_execution?.status).toMatch(/pending|running|failed/);
  });
});

describe("public and sends", () => {
  it("serves public watches anonymously, counts views except the owner's", async () => {
    const owner = await newUser(undefined, { username: `pv${Date.now().toString(36)}` });
    const t = await createTask(owner.token, { notifications: [{ type: "email", address: "o@example.com" }] });
    expect((await call("GET", `/api/v1/public/tasks/id/${t.id}`)).status).toBe(404);
    await call("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    const anon = await call("GET", `/api/v1/public/tasks/id/${t.id}`);
    expect(anon.status).toBe(200);
    expect(anon.body).toMatchObject({ user_id: null, notifications: [], notification_email: null, view_count: 1 });
    const asOwner = await call("GET", `/api/v1/public/tasks/id/${t.id}`, { auth: owner.token });
    expect(asOwner.body).toMatchObject({ user_id: null, notifications: [], view_count: 1 });
    const again = await call("GET", `/api/v1/public/tasks/id/${t.id}`);
    expect(again.body.view_count).toBe(2);
  });

  it("lists the send history with filters; /api/v1/notifications does not exist", async () => {
    const u = await newUser();
    const r = await call("GET", "/api/v1/notifications/sends", { auth: u.token });
    expect(r).toMatchObject({ status: 200, body: { sends: [], total: 0 } });
    expect((await call("GET", "/api/v1/notifications/sends?notification_type=sms", { auth: u.token })).status).toBe(
      422,
    );
    expect(
      (
        await call("GET", `/api/v1/notifications/sends?notification_type=email&task_id=${MISSING}&limit=10&offset=5`, {
          auth: u.token,
        })
      ).status,
    ).toBe(200);
    expect((await call("GET", "/api/v1/notifications/sends?limit=501", { auth: u.token })).status).toBe(422);
    const missing = await call("GET", "/api/v1/notifications", { auth: u.token });
    expect(missing.status).toBe(404);
    expect(Object.keys(missing.body)).toEqual(["detail"]);
  });
});
