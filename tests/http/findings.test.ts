/**
 * Findings on a running server, the stub model steered per watch: a finding seen again is confirmed, not repeated
 * (in the API, the public API and both feeds); a held one is the owner's alone on every surface; a retraction is its
 * own feed item; pages of findings carry X-Total-Count; every source names its site; and a run's progress can be read
 * while it goes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, newUser, sharedStubs, type TestUser } from "../helpers/api";
import { decisionFor } from "../helpers/stubs/model";
import { waitFor } from "../helpers/wait";

/** The shared server's model stub, steered per watch by its search query. */
const model = sharedStubs().model;
let owner: TestUser;

beforeAll(async () => {
  owner = await newUser(undefined, { username: `finder${Date.now().toString(36)}` });
});

const api = (method: string, path: string, body?: unknown) => call(method, path, { auth: owner.token, body });
/** A request without credentials: on the shared server, the development account, never the watches' owner. */
const get = (path: string) => call("GET", path);

async function watch(query: string, body: Record<string, unknown> = {}) {
  const r = await api("POST", "/api/v1/tasks", { search_query: query, state: "paused", notifications: [], ...body });
  expect(r.status).toBe(200);
  return r.body.id as string;
}

async function runNow(id: string) {
  const started = await api("POST", `/api/v1/tasks/${id}/execute`);
  expect(started.status).toBe(200);
  return waitFor("the run", async () => {
    const [latest] = (await api("GET", `/api/v1/tasks/${id}/executions?limit=1`)).body;
    return latest?.id === started.body.id && latest.status !== "pending" && latest.status !== "running" && latest;
  });
}

const itemsOf = async (id: string) =>
  (await get(`/api/v1/public/tasks/id/${id}/feed.json`)).body.items as {
    id: string;
    title: string;
    content_html: string;
  }[];
const rssItems = async (id: string) => (await get(`/api/v1/public/tasks/id/${id}/rss`)).text.split("<item>").length - 1;

describe("a finding seen again", () => {
  it("is one entry with its confirmations, in the API, the public API and both feeds", async () => {
    const query = "findings: Postgres 19 beta";
    const id = await watch(query);
    const first = await runNow(id);
    await model.answer(
      query,
      decisionFor({ notify: false, notification: null, answer: "Beta 1 is still the latest." }),
    );
    await runNow(id);
    const last = await runNow(id);

    const owner = await api("GET", `/api/v1/tasks/${id}/findings`);
    expect(owner.status).toBe(200);
    expect(owner.headers.get("x-total-count")).toBe("1");
    expect(owner.body).toEqual([
      {
        key: "pg19-beta1",
        title: "PostgreSQL 19 Beta 1 is out",
        answer: "Beta 1 is still the latest.",
        sources: [
          {
            url: "https://www.postgresql.org/about/news/pg19-beta1/",
            title: "PostgreSQL 19 Beta 1 Released",
            domain: "postgresql.org",
          },
        ],
        status: "notified",
        gate_reason: null,
        first_found_at: first.completed_at,
        last_confirmed_at: last.completed_at,
        confirmations: 3,
        first_execution_id: first.id,
        last_execution_id: last.id,
        retracted_at: null,
      },
    ]);
    // The runs themselves stay three, and name their sources' sites too.
    expect((await api("GET", `/api/v1/tasks/${id}/notifications`)).body).toHaveLength(3);
    expect(last.grounding_sources[0].domain).toBe("postgresql.org");
    const task = (await api("GET", `/api/v1/tasks/${id}`)).body;
    expect(task.resolution.sources[0].domain).toBe("postgresql.org");

    expect((await api("PATCH", `/api/v1/tasks/${id}/visibility`, { is_public: true })).status).toBe(200);
    const anyone = await get(`/api/v1/public/tasks/id/${id}/findings`);
    expect(anyone.status).toBe(200);
    expect(anyone.headers.get("x-total-count")).toBe("1");
    expect(anyone.body).toEqual(owner.body);
    const items = await itemsOf(id);
    expect(items.map((i) => i.title)).toEqual(["PostgreSQL 19 Beta 1 is out"]);
    expect(items[0]!.id).toMatch(new RegExp(`/w/${id}#f-[0-9a-f]{16}$`));
    expect(await rssItems(id)).toBe(1);
    // The public task view has no progress (the owner's runs do).
    const publicTask = (await get(`/api/v1/public/tasks/id/${id}`)).body;
    expect(publicTask.last_execution).not.toHaveProperty("progress");
    expect(publicTask.resolution.sources[0].domain).toBe("postgresql.org");
  });

  it("is news again only under a new key; a retraction is its own feed item; pages carry the total", async () => {
    const query = "findings: Postgres 20 beta";
    const id = await watch(query);
    await api("PATCH", `/api/v1/tasks/${id}/visibility`, { is_public: true });
    await model.answer(
      query,
      decisionFor({ finding_key: "pg20-beta1", notification: { title: "Beta 1", markdown: "b1" } }),
    );
    await runNow(id);
    await model.answer(
      query,
      decisionFor({ finding_key: "pg20-beta2", notification: { title: "Beta 2", markdown: "b2" } }),
    );
    await runNow(id);
    await model.answer(
      query,
      decisionFor({ condition_met: false, notify: false, finding_key: null, retracts_previous: true }),
    );
    const retraction = await runNow(id);

    const all = await api("GET", `/api/v1/tasks/${id}/findings`);
    expect(all.headers.get("x-total-count")).toBe("2");
    expect(all.body.map((f: { key: string; status: string }) => [f.key, f.status])).toEqual([
      ["pg20-beta2", "retracted"],
      ["pg20-beta1", "notified"],
    ]);
    expect(all.body[0].retracted_at).toBe(retraction.completed_at);
    const page = await api("GET", `/api/v1/tasks/${id}/findings?limit=1&offset=1`);
    expect(page.headers.get("x-total-count")).toBe("2");
    expect(page.body.map((f: { key: string }) => f.key)).toEqual(["pg20-beta1"]);
    expect((await api("GET", `/api/v1/tasks/${id}/findings?limit=0`)).status).toBe(422);
    expect((await api("GET", `/api/v1/tasks/${id}/findings?limit=101`)).status).toBe(422);

    expect((await itemsOf(id)).map((i) => i.title)).toEqual(["Retracted: Beta 2", "Beta 2", "Beta 1"]);
    expect(await rssItems(id)).toBe(3);
  });
});

describe("a held finding", () => {
  it("is the owner's alone: not in the public findings, the feeds, the verdict or the badge", async () => {
    const query = "findings: held rumour";
    const id = await watch(query, { min_sources: 2 });
    await api("PATCH", `/api/v1/tasks/${id}/visibility`, { is_public: true });
    await model.answer(
      query,
      decisionFor({ finding_key: "rumour", notification: { title: "A rumour", markdown: "r" } }),
    );
    await runNow(id);
    await runNow(id);

    const owner = (await api("GET", `/api/v1/tasks/${id}/findings`)).body;
    expect(owner).toMatchObject([
      { key: "rumour", status: "held", gate_reason: "1 independent source, 2 required", confirmations: 2 },
    ]);
    const anyone = await get(`/api/v1/public/tasks/id/${id}/findings`);
    expect(anyone.headers.get("x-total-count")).toBe("0");
    expect(anyone.body).toEqual([]);
    expect(await itemsOf(id)).toEqual([]);
    expect(await rssItems(id)).toBe(0);
    const view = (await get(`/api/v1/public/tasks/id/${id}`)).body;
    expect(view.resolution.status).toBe("watching");
    expect(view.last_execution).toBeNull();
    // Paused, as the owner left it: never "held" for anyone else, and no answer the bounds held back.
    expect(view.verdict.state).toBe("paused");
    expect(view.latest_answer).toBeNull();
    expect((await get(`/api/v1/public/tasks/id/${id}/badge.svg`)).text).toContain('aria-label="watch: paused"');
    const page = (await get(`/w/${id}`)).text;
    expect(page).not.toContain("A rumour");
  });

  it("is unknown to anyone for a private watch (404)", async () => {
    const id = await watch("findings: private");
    expect((await get(`/api/v1/public/tasks/id/${id}/findings`)).status).toBe(404);
    expect((await api("GET", `/api/v1/tasks/00000000-0000-4000-8000-000000000000/findings`)).status).toBe(404);
  });
});

describe("a run under way", () => {
  it("shows its searches while it goes, then its decision and where it was sent", async () => {
    const query = "findings: progress while running";
    const release = await model.hold(query);
    const id = await watch(query, { notifications: [{ type: "email", address: owner.email }] });
    const started = await api("POST", `/api/v1/tasks/${id}/execute`);
    expect(started.status).toBe(200);
    // The model's answer is held back until the search is visible on the running execution.
    const running = await waitFor("the search in the running execution's progress", async () => {
      const [latest] = (await api("GET", `/api/v1/tasks/${id}/executions?limit=1`)).body;
      return latest?.status === "running" && latest.progress.length > 0 && latest;
    });
    expect(running.progress).toEqual([{ at: expect.any(String), step: "search", detail: query }]);
    await release();
    const done = await waitFor("the run", async () => {
      const [latest] = (await api("GET", `/api/v1/tasks/${id}/executions?limit=1`)).body;
      return latest?.status === "success" && latest;
    });
    expect(done.progress.map((p: { step: string }) => p.step)).toEqual(["search", "decide", "notify"]);
    expect(done.progress[1].detail).toBe("Met · 90% sure · new finding: PostgreSQL 19 Beta 1 is out");
    expect(done.progress[2].detail).toBe("Sending the finding to email and followers");
  });
});
