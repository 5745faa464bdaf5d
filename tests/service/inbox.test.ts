/**
 * An inbox of answers through REST: the own list in attention order and by name, creation or edit, filtered by words
 * and by what each watch found; `unseen` until the owner looks (POST …/seen); `latest_answer` for the owner and the
 * public (never from a held run); the verdict's state on owner and public views; and what became of the latest notice
 * on each channel (retrying with its next attempt, failed with its class, delivered after a redelivery).
 */
import { describe, expect, it } from "vitest";
import { deliveryOf } from "@/server/notify/channels";
import { channelDelivery } from "@/server/runs/workflow";
import { readVerdict } from "@/server/tasks/reads";
import type { Notice } from "@/server/notify/events";
import { withService } from "../helpers/service";
import { decisionFor } from "../helpers/stubs/model";
import { waitFor } from "../helpers/wait";

const app = withService();
const HOUR = 3_600_000;

/** A signed-in user's REST calls. */
async function owner(username?: string) {
  const user = await app.newUser(undefined, { username });
  const api = (method: string, path: string, body?: unknown) => app.call(method, path, { auth: user.token, body });
  const create = async (body: Record<string, unknown>) => {
    const r = await api("POST", "/api/v1/tasks", { state: "paused", ...body });
    expect(r.status).toBe(200);
    return r.body.id as string;
  };
  /** The watch's latest run once it is settled (started by hand, or by the scheduler when `started` is omitted). */
  const settled = (id: string, started?: string) =>
    waitFor("the run", async () => {
      const [run] = (await api("GET", `/api/v1/tasks/${id}/executions?limit=1`)).body;
      return run && (!started || run.id === started) && run.status !== "pending" && run.status !== "running" && run;
    });
  const runNow = async (id: string) => {
    const r = await api("POST", `/api/v1/tasks/${id}/execute`);
    expect(r.status).toBe(200);
    return settled(id, r.body.id);
  };
  const list = async (query: string) => {
    const r = await api("GET", `/api/v1/tasks?${query}`);
    expect(r.status).toBe(200);
    return { names: r.body.map((t: { name: string }) => t.name) as string[], total: r.headers.get("x-total-count") };
  };
  return { user, api, create, settled, runNow, list };
}

const notMet = (nextRunInMs: number) =>
  decisionFor({
    condition_met: false,
    notify: false,
    notification: null,
    finding_key: null,
    answer: "Nothing announced yet. The page still lists the old version.",
    next_run: new Date(Date.now() + nextRunInMs).toISOString(),
  });

describe("the own list", () => {
  it("orders by attention, name, creation and edit, filters by words and state, and pages with X-Total-Count", async () => {
    const o = await owner();
    const q = (name: string) => `inbox list ${name}`;
    // Active watches run at once (the scheduler's first check) and come back when the agent said.
    app.stubs.model.answer(q("alpha"), notMet(5 * HOUR));
    app.stubs.model.answer(q("bravo"), notMet(2 * HOUR));
    const alpha = await o.create({ name: "Alpha kernel release", search_query: q("alpha"), state: "active" });
    const bravo = await o.create({
      name: "Bravo python",
      search_query: q("bravo"),
      condition_description: "a beta is out",
      state: "active",
    });
    await o.settled(alpha);
    await o.settled(bravo);
    await o.create({ name: "Golf never run", search_query: q("golf") });
    const charlie = await o.create({ name: "Charlie rust edition", search_query: q("charlie") });
    app.stubs.model.answer(q("charlie"), decisionFor({ finding_key: "charlie-1" }));
    await o.runNow(charlie);
    const delta = await o.create({ name: "Delta gpu price", search_query: q("delta") });
    app.stubs.model.answer(q("delta"), decisionFor({ finding_key: "delta-1" }));
    await o.runNow(delta);
    expect((await o.api("POST", `/api/v1/tasks/${delta}/seen`)).status).toBe(204);
    const foxtrot = await o.create({ name: "Foxtrot held", search_query: q("foxtrot"), min_sources: 2 });
    app.stubs.model.answer(q("foxtrot"), decisionFor({ finding_key: "foxtrot-1" }));
    await o.runNow(foxtrot);
    const echo = await o.create({ name: "Echo node update", search_query: q("echo") });
    app.stubs.model.answer(q("echo"), { providerError: 400 });
    for (let i = 0; i < 3; i++) await o.runNow(echo);

    // Failing first, then findings not seen (newest first), then the rest with findings, then by next check.
    expect((await o.list("sort=attention")).names).toEqual([
      "Echo node update",
      "Foxtrot held",
      "Charlie rust edition",
      "Delta gpu price",
      "Bravo python",
      "Alpha kernel release",
      "Golf never run",
    ]);
    expect(await o.list("sort=attention&limit=2&offset=1")).toEqual({
      names: ["Foxtrot held", "Charlie rust edition"],
      total: "7",
    });
    expect((await o.list("sort=name&limit=3")).names).toEqual([
      "Alpha kernel release",
      "Bravo python",
      "Charlie rust edition",
    ]);
    // Without sort: newest first, as before.
    expect((await o.list("")).names.slice(0, 2)).toEqual(["Echo node update", "Foxtrot held"]);
    expect((await o.api("PUT", `/api/v1/tasks/${alpha}`, { name: "Alpha kernel release" })).status).toBe(200);
    expect((await o.list("sort=updated")).names[0]).toBe("Alpha kernel release");

    // Every word, in any field, any case.
    expect((await o.list("q=PYTHON%20beta")).names).toEqual(["Bravo python"]);
    expect(await o.list("q=python%20kernel")).toEqual({ names: [], total: "0" });
    expect(await o.list("q=%25")).toEqual({ names: [], total: "0" }); // a LIKE wildcard is a character like any other
    // A page of a search counts every match; a renamed watch is found by its new name at once.
    const withE = await o.list("q=e&sort=name");
    expect(withE.names.length).toBeGreaterThan(3);
    expect(await o.list("q=e&sort=name&limit=2&offset=1")).toEqual({
      names: withE.names.slice(1, 3),
      total: String(withE.names.length),
    });
    expect((await o.api("PUT", `/api/v1/tasks/${alpha}`, { name: "Alpha kernel Zulu" })).status).toBe(200);
    expect((await o.list("q=zulu")).names).toEqual(["Alpha kernel Zulu"]);
    expect((await o.api("PUT", `/api/v1/tasks/${alpha}`, { name: "Alpha kernel release" })).status).toBe(200);
    expect(await o.list("q=zulu")).toEqual({ names: [], total: "0" });

    const state = async (s: string) => (await o.list(`state=${s}&sort=name`)).names;
    expect(await state("met")).toEqual(["Charlie rust edition", "Delta gpu price"]);
    expect(await state("held")).toEqual(["Foxtrot held"]);
    expect(await state("failing")).toEqual(["Echo node update"]);
    expect(await state("watching")).toEqual(["Alpha kernel release", "Bravo python"]);
    expect(await state("active")).toEqual(["Alpha kernel release", "Bravo python"]);
    expect(await state("paused")).toHaveLength(5);
    expect(await state("completed")).toEqual([]);
    expect(await o.list("state=met&q=gpu&limit=1")).toEqual({ names: ["Delta gpu price"], total: "1" });

    const bad = await o.api("GET", "/api/v1/tasks?sort=newest&state=done");
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual(["query.sort", "query.state"]);

    // What each row says: its verdict, its answer's first sentence, whether it has news.
    const rows = Object.fromEntries(
      (await o.api("GET", "/api/v1/tasks")).body.map((t: Record<string, unknown>) => [t.name, t]),
    );
    // Paused (it ran by hand), so not checking: its failures put it first in the list, not in its verdict.
    expect(rows["Echo node update"]).toMatchObject({
      verdict: { state: "paused", failure: null },
      latest_answer: null,
      unseen: false,
    });
    expect(rows["Foxtrot held"]).toMatchObject({
      verdict: { state: "held", reason: "1 independent source, 2 required" },
      latest_answer: "PostgreSQL 19 Beta 1 was released today.",
      unseen: true,
    });
    expect(rows["Charlie rust edition"]).toMatchObject({ verdict: { state: "met" }, unseen: true });
    expect(rows["Delta gpu price"]).toMatchObject({ unseen: false, delivery_failed: false });
    expect(rows["Bravo python"]).toMatchObject({
      verdict: { state: "not_yet", running: false },
      latest_answer: "Nothing announced yet.",
    });
    expect(rows["Golf never run"]).toMatchObject({ verdict: { state: "paused", as_of: null }, latest_answer: null });

    // Another user's watches are not in it, and a watch of theirs cannot be marked seen.
    const other = await owner();
    expect(await other.list("sort=attention")).toEqual({ names: [], total: "0" });
    expect((await other.api("POST", `/api/v1/tasks/${charlie}/seen`)).status).toBe(404);
  });
});

describe("unseen", () => {
  it("is set by a finding and by a retraction, and cleared by POST …/seen", async () => {
    const o = await owner();
    const query = "inbox unseen";
    const id = await o.create({ search_query: query });
    const unseen = async () => (await o.api("GET", `/api/v1/tasks/${id}`)).body.unseen;
    expect(await unseen()).toBe(false);
    app.stubs.model.answer(query, decisionFor({ finding_key: "unseen-1" }));
    await o.runNow(id);
    expect(await unseen()).toBe(true);
    expect((await o.api("POST", `/api/v1/tasks/${id}/seen`)).status).toBe(204);
    expect(await unseen()).toBe(false);
    // The same finding again is no news.
    await o.runNow(id);
    expect(await unseen()).toBe(false);
    app.stubs.model.answer(
      query,
      decisionFor({
        condition_met: false,
        notify: false,
        notification: null,
        finding_key: null,
        retracts_previous: true,
      }),
    );
    await o.runNow(id);
    expect(await unseen()).toBe(true);
    expect((await o.api("POST", "/api/v1/tasks/00000000-0000-4000-8000-000000000000/seen")).status).toBe(404);
  });
});

describe("answered: stop watching, or keep watching?", () => {
  it("is asked once per finding and account: Keep watching or completing answers it, a new finding asks again", async () => {
    const o = await owner();
    const query = "inbox answered prompt";
    const id = await o.create({ search_query: query });
    const answered = async () => (await o.api("GET", `/api/v1/tasks/${id}`)).body.answered;
    expect(await answered()).toBe(false);
    app.stubs.model.answer(query, decisionFor({ finding_key: "answered-1" }));
    await o.runNow(id);
    expect(await answered()).toBe(false);
    expect((await o.api("POST", `/api/v1/tasks/${id}/keep-watching`)).status).toBe(204);
    expect(await answered()).toBe(true);
    // Every client reads the same answer (the dashboard's own transport too).
    expect((await app.trpc(o.user.token).tasks.get({ id })).answered).toBe(true);
    await o.runNow(id); // the same finding again: still answered
    expect(await answered()).toBe(true);
    app.stubs.model.answer(query, decisionFor({ finding_key: "answered-2" }));
    await o.runNow(id);
    expect(await answered()).toBe(false);
    // Completing the watch is the other answer; reactivated, it does not ask again for this finding.
    expect((await o.api("PUT", `/api/v1/tasks/${id}`, { state: "active" })).status).toBe(200);
    expect((await o.api("PUT", `/api/v1/tasks/${id}`, { state: "completed" })).status).toBe(200);
    expect((await o.api("PUT", `/api/v1/tasks/${id}`, { state: "active" })).status).toBe(200);
    expect(await answered()).toBe(true);
    const other = await owner();
    expect((await other.api("POST", `/api/v1/tasks/${id}/keep-watching`)).body).toEqual({ detail: "Task not found" });
  });
});

describe("latest answer and verdict", () => {
  it("gives the owner the latest answer and anyone else the latest not held back, each with their verdict", async () => {
    const o = await owner(`inbox${Date.now().toString(36)}`);
    const query = "inbox latest answer";
    const id = await o.create({ search_query: query });
    expect((await o.api("PATCH", `/api/v1/tasks/${id}/visibility`, { is_public: true })).status).toBe(200);
    const views = async () => [
      (await o.api("GET", `/api/v1/tasks/${id}`)).body,
      (await app.call("GET", `/api/v1/public/tasks/id/${id}`)).body,
    ];
    let [mine, theirs] = await views();
    expect(mine).toMatchObject({ latest_answer: null, verdict: { state: "paused", as_of: null } });
    expect(theirs).toMatchObject({ latest_answer: null, verdict: { state: "paused" } });
    expect(theirs).not.toHaveProperty("unseen");

    await o.api("PUT", `/api/v1/tasks/${id}`, { state: "active" });
    app.stubs.model.answer(
      query,
      decisionFor({
        finding_key: "beta-1",
        answer: "## Verdict\n**Yes**: [Beta 1](https://www.postgresql.org/) is out, per the project. Beta 2 is next.",
      }),
    );
    const found = await o.settled(id); // the scheduler's first check of the resumed watch
    [mine, theirs] = await views();
    const met = { state: "met", since: found.completed_at, as_of: found.completed_at, failure: null };
    expect(mine).toMatchObject({ latest_answer: "Yes: Beta 1 is out, per the project.", verdict: met });
    expect(theirs).toMatchObject({ latest_answer: "Yes: Beta 1 is out, per the project.", verdict: met });

    // A new finding the bounds hold back: the owner sees it, held; anyone else sees what they saw.
    expect((await o.api("PUT", `/api/v1/tasks/${id}`, { min_sources: 2 })).status).toBe(200);
    app.stubs.model.answer(query, decisionFor({ finding_key: "beta-2", answer: "Beta 2 is rumoured for Friday." }));
    const held = await o.runNow(id);
    [mine, theirs] = await views();
    expect(mine).toMatchObject({
      latest_answer: "Beta 2 is rumoured for Friday.",
      unseen: true,
      verdict: {
        state: "held",
        since: held.completed_at,
        as_of: held.completed_at,
        reason: "1 independent source, 2 required",
      },
    });
    expect(theirs).toMatchObject({ latest_answer: "Yes: Beta 1 is out, per the project.", verdict: met });
    expect(JSON.stringify(theirs)).not.toContain("rumoured");
    // What an email's verdict strip reads, for the owner and for a follower.
    expect(await readVerdict(id, "owner")).toEqual({ verdict: mine.verdict, latest_answer: mine.latest_answer });
    expect(await readVerdict(id, "public")).toEqual({ verdict: theirs.verdict, latest_answer: theirs.latest_answer });
    const directory = (await app.call("GET", `/api/v1/public/tasks?q=${encodeURIComponent(query)}`)).body;
    expect(directory[0]).toMatchObject({ latest_answer: "Yes: Beta 1 is out, per the project." });
  });

  it("says a first check is under way, then that checks fail (ours) and when they are retried", async () => {
    const o = await owner();
    const query = "inbox first check";
    app.stubs.model.answer(query, notMet(HOUR));
    app.stubs.model.delay(1500);
    let id: string;
    try {
      id = await o.create({ search_query: query, state: "active" }); // its first check starts at once
      const first = await waitFor("the running first check", async () => {
        const t = (await o.api("GET", `/api/v1/tasks/${id}`)).body;
        return t.verdict.running && t;
      });
      expect(first.verdict).toMatchObject({ state: "first_check", running: true, as_of: null });
      expect(first.verdict.since).toEqual(expect.any(String));
    } finally {
      app.stubs.model.delay(0);
    }
    const answered = await o.settled(id);
    expect((await o.api("GET", `/api/v1/tasks/${id}`)).body.verdict).toMatchObject({
      state: "not_yet",
      as_of: answered.completed_at,
    });

    // Failing from its first check: can't check, ours, retried at the watch's next run.
    app.stubs.model.answer(`${query} failing`, { providerError: 400 });
    const failing = await o.create({ search_query: `${query} failing`, state: "active" });
    const failed = await o.settled(failing);
    expect(failed.status).toBe("failed");
    const view = (await o.api("GET", `/api/v1/tasks/${failing}`)).body;
    expect(view.verdict).toEqual({
      state: "cant_check",
      since: failed.completed_at,
      as_of: null,
      running: false,
      failure: "ours",
      retry_at: view.next_run,
      reason: "The AI model provider is failing.",
    });
    expect(Date.parse(view.next_run)).toBeGreaterThan(Date.now());
  });
});

describe("delivery", () => {
  /** The delivery workflow of one notice, its retries' waits run at once; `onWait` looks at the watch meanwhile. */
  const deliver = (type: "webhook" | "email", executionId: string, onWait: () => Promise<void> = async () => {}) =>
    channelDelivery({ run: (_id, fn) => fn(), sleep: onWait, send: async () => undefined }, type, executionId, {
      event: "task.condition_met",
    } as Notice);

  /** A watch with these channels (a webhook to `path` of the receiver by default) and a met run of it. */
  async function notified(
    path: string,
    notifications: Record<string, unknown>[] = [{ type: "webhook", url: `${app.stubs.receiver.url}${path}` }],
  ) {
    const o = await owner();
    const id = await o.create({ search_query: `inbox delivery ${path}`, notifications });
    // The run is written as the record step leaves it; its deliveries are started by the test.
    const run = await app.db.execution.create({
      data: {
        task_id: id,
        status: "success",
        condition_met: true,
        completed_at: new Date(),
        result: { condition_met: true, answer: "Out.", evidence: "", confidence: 0.9 },
        notification: { title: "Out", markdown: "Out." },
      },
    });
    return { o, id, run: run.id, delivery: async () => (await o.api("GET", `/api/v1/tasks/${id}`)).body };
  }

  it("is empty before any notice, retrying with the next attempt while a 500 lasts, delivered once it passes", async () => {
    const { id, run, delivery, o } = await notified("/inbox-flaky");
    expect((await delivery()).delivery).toEqual([]);
    let calls = 0;
    app.stubs.receiver.reply("/inbox-flaky", () => (++calls === 1 ? { status: 500, text: "down" } : { text: "ok" }));
    const seen: unknown[] = [];
    const outcome = await deliver("webhook", run, async () => void seen.push((await delivery()).delivery));
    expect(outcome).toEqual({ attempts: 2, status: "sent" });
    const [retrying] = seen as Record<string, unknown>[][];
    expect(retrying).toEqual([
      {
        channel: "webhook",
        label: "Webhook",
        event: "task.condition_met",
        state: "retrying",
        failure: "unreachable",
        error: "HTTP 500",
        attempts: 1,
        last_attempt_at: expect.any(String),
        next_attempt_at: expect.any(String),
        send_id: expect.any(String),
      },
    ]);
    const wait =
      Date.parse(retrying![0]!.next_attempt_at as string) - Date.parse(retrying![0]!.last_attempt_at as string);
    expect(wait).toBeGreaterThan(50_000);
    expect(wait).toBeLessThan(70_000);
    expect((await delivery()).delivery).toMatchObject([
      { channel: "webhook", state: "delivered", failure: null, error: null, attempts: 2, next_attempt_at: null },
    ]);
    const sends = (await o.api("GET", `/api/v1/notifications/sends?task_id=${id}`)).body.sends;
    expect(sends.map((s: Record<string, unknown>) => [s.attempt, s.status, s.failure, !!s.next_attempt_at])).toEqual([
      [2, "sent", null, false],
      [1, "failed", "unreachable", true],
    ]);
  });

  it("fails unreachable after the last attempt, marks the watch on the list, and a redelivery clears it", async () => {
    const { id, run, delivery, o } = await notified("/inbox-down");
    app.stubs.receiver.reply("/inbox-down", () => ({ status: 503, text: "down" }));
    expect(await deliver("webhook", run)).toEqual({ attempts: 4, status: "failed" });
    const failed = await delivery();
    expect(failed.delivery).toMatchObject([
      { state: "failed", failure: "unreachable", error: "HTTP 503", attempts: 4, next_attempt_at: null },
    ]);
    expect(failed.delivery_failed).toBe(true);
    const [first] = (await o.api("GET", "/api/v1/tasks?sort=attention&state=failing")).body;
    expect(first).toMatchObject({ id, delivery_failed: true });

    app.stubs.receiver.reply("/inbox-down", () => ({ text: "ok" }));
    const again = await o.api("POST", `/api/v1/notifications/sends/${failed.delivery[0].send_id}/redeliver`);
    expect(again.body).toMatchObject({ status: "sent", attempt: 5, failure: null, next_attempt_at: null });
    const after = await delivery();
    expect(after.delivery).toMatchObject([{ state: "delivered", attempts: 5, send_id: again.body.id }]);
    expect(after.delivery_failed).toBe(false);
    expect((await o.list("state=failing")).names).toEqual([]);
  });

  it("reads a failed attempt as retrying from the moment it is recorded, with its next attempt", async () => {
    const { run, delivery } = await notified("/inbox-settle");
    app.stubs.receiver.reply("/inbox-settle", () => ({ status: 503, text: "busy" }));
    // The attempt alone, without the workflow step that follows it.
    await deliveryOf("webhook")!.deliver(run, { event: "task.condition_met" } as Notice, 1);
    expect((await delivery()).delivery).toMatchObject([
      { state: "retrying", failure: "unreachable", attempts: 1, next_attempt_at: expect.any(String) },
    ]);
  });

  it("classes a 400 as refused, and email without a Resend key as Watch's own failure", async () => {
    const { run, delivery } = await notified("/inbox-refused");
    app.stubs.receiver.reply("/inbox-refused", () => ({ status: 400, text: "bad payload" }));
    await deliver("webhook", run);
    expect((await delivery()).delivery).toMatchObject([{ state: "failed", failure: "refused", attempts: 4 }]);

    const mail = await notified("/inbox-mail", [{ type: "email", address: "test@localhost" }]);
    app.setEnv({ RESEND_API_KEY: undefined });
    try {
      expect(await deliver("email", mail.run)).toEqual({ attempts: 1, status: "failed" });
    } finally {
      app.setEnv({});
    }
    const view = await mail.delivery();
    expect(view.delivery).toEqual([
      expect.objectContaining({
        channel: "email",
        label: "Email",
        state: "failed",
        failure: "internal",
        error: "Email is not configured on this server: set RESEND_API_KEY",
      }),
    ]);
    expect(view.delivery_failed).toBe(true);
  });

  it("records a real run's deliveries: delivered on the channel that accepted, retrying on the one that did not", async () => {
    const o = await owner();
    const query = "inbox delivery run";
    app.stubs.receiver.reply("/inbox-run", () => ({ status: 500, text: "down" }));
    const id = await o.create({
      search_query: query,
      notifications: [
        { type: "email", address: o.user.email },
        { type: "webhook", url: `${app.stubs.receiver.url}/inbox-run` },
      ],
    });
    app.stubs.model.answer(query, decisionFor({ finding_key: "run-1" }));
    await o.runNow(id);
    const settled = await waitFor("both channels' first attempt", async () => {
      const t = (await o.api("GET", `/api/v1/tasks/${id}`)).body;
      return (
        t.delivery.length === 2 &&
        t.delivery.every((d: { failure: unknown; state: string }) => d.state === "delivered" || d.failure) &&
        t
      );
    });
    expect(settled.delivery).toMatchObject([
      { channel: "email", state: "delivered", attempts: 1 },
      {
        channel: "webhook",
        state: "retrying",
        failure: "unreachable",
        attempts: 1,
        next_attempt_at: expect.any(String),
      },
    ]);
    expect(settled.delivery_failed).toBe(false);
  });
});
