/**
 * Sharing a watch, the stub model steered per watch: the verdict (`resolution`) on owner and public views through a
 * finding, its retraction and completion; the badge for each status; JSON Feed beside RSS; conditional GET on the
 * feeds, the badge and the public watch JSON. The public page and the Open Graph image are rendered by Next.js:
 * tests/http/pages.test.ts.
 */
import { xml2js, type ElementCompact } from "xml-js";
import { beforeAll, describe, expect, it } from "vitest";
import { withService } from "../helpers/service";
import { decisionFor, type StubDecision } from "../helpers/stubs/model";
import { waitFor } from "../helpers/wait";

// TRUST_PROXY: each test reads the public endpoints from an address of its own, so per-IP limits never mix.
const app = withService({ SERVICE_NOAUTH: "1", TRUST_PROXY: "1" });

beforeAll(async () => {
  await api("PATCH", "/api/v1/users/me/username", { username: `share${Date.now().toString(36)}` });
});

const api = (method: string, path: string, body?: unknown) => app.call(method, path, { body });
let addresses = 0;
/** An anonymous visitor from an address of its own. */
function visitor() {
  const ip = `198.51.100.${++addresses}`;
  return (path: string, headers: Record<string, string> = {}) =>
    app.call("GET", path, { headers: { "x-forwarded-for": ip, ...headers } });
}

async function publicWatch(query: string) {
  const r = await api("POST", "/api/v1/tasks", { search_query: query, name: query, state: "paused" });
  expect(r.status).toBe(200);
  expect((await api("PATCH", `/api/v1/tasks/${r.body.id}/visibility`, { is_public: true })).status).toBe(200);
  return r.body.id as string;
}

/** Runs the watch now with this answer of the model and waits for the run's outcome. */
async function runNow(id: string, query: string, decision: StubDecision) {
  app.stubs.model.answer(query, decision);
  const started = await api("POST", `/api/v1/tasks/${id}/execute`);
  expect(started.status).toBe(200);
  return waitFor("the run", async () => {
    const [latest] = (await api("GET", `/api/v1/tasks/${id}/executions?limit=1`)).body;
    return latest?.id === started.body.id && latest.status !== "pending" && latest.status !== "running" && latest;
  });
}

/** Resumes the watch, whose first scheduled run (due at once) finds this and completes it; that run. */
async function completedByAgent(id: string, query: string, decision: StubDecision) {
  app.stubs.model.answer(query, { ...decision, done: true });
  expect((await api("PUT", `/api/v1/tasks/${id}`, { state: "active" })).status).toBe(200);
  await waitFor(
    "the watch completed",
    async () => (await api("GET", `/api/v1/tasks/${id}`)).body.state === "completed",
  );
  return (await api("GET", `/api/v1/tasks/${id}/executions?limit=1`)).body[0];
}

const retraction = () =>
  decisionFor({
    condition_met: false,
    notify: false,
    notification: null,
    finding_key: null,
    retracts_previous: true,
    answer: "The announcement was withdrawn.",
  });
const WATCHING = { status: "watching", since: null, answer: null, sources: [] };

describe("resolution", () => {
  it("is watching, met while the notified finding stands, watching after its retraction, resolved once completed", async () => {
    const query = "resolution lifecycle";
    const id = await publicWatch(query);
    const get = visitor();
    const views = async () => [
      (await api("GET", `/api/v1/tasks/${id}`)).body.resolution,
      (await get(`/api/v1/public/tasks/id/${id}`)).body.resolution,
    ];
    expect(await views()).toEqual([WATCHING, WATCHING]);

    const sources = [
      { url: "https://www.postgresql.org/about/news/pg19-beta1/", title: "PostgreSQL 19 Beta 1 Released" },
    ];
    const found = await runNow(
      id,
      query,
      decisionFor({ finding_key: "beta1", answer: "Yes: **Beta 1** is out.", sources }),
    );
    const met = {
      status: "met",
      since: found.completed_at,
      answer: "Yes: **Beta 1** is out.",
      sources: sources.map((s) => ({ ...s, domain: "postgresql.org" })),
    };
    expect(await views()).toEqual([met, met]);
    // A later run that finds nothing new leaves the verdict as it stands.
    await runNow(id, query, decisionFor({ finding_key: "beta1", answer: "Still out." }));
    expect(await views()).toEqual([met, met]);
    expect((await api("GET", "/api/v1/tasks")).body.find((t: { id: string }) => t.id === id).resolution).toEqual(met);

    await runNow(id, query, retraction());
    expect(await views()).toEqual([WATCHING, WATCHING]);

    const again = await completedByAgent(
      id,
      query,
      decisionFor({ finding_key: "beta1-confirmed", answer: "Confirmed." }),
    );
    const resolved = {
      status: "resolved",
      since: again.completed_at,
      answer: "Confirmed.",
      sources: again.grounding_sources,
    };
    expect(await views()).toEqual([resolved, resolved]);
    // Resumed, it is met again; completed by hand, resolved.
    expect((await api("PUT", `/api/v1/tasks/${id}`, { state: "active" })).body.resolution.status).toBe("met");
    expect((await api("PUT", `/api/v1/tasks/${id}`, { state: "completed" })).body.resolution).toEqual(resolved);
  });
});

type Svg = ElementCompact & { svg: { _attributes: Record<string, string>; title: { _text: string } } };
const parseSvg = (text: string) => xml2js(text, { compact: true }) as Svg;

describe("badge", () => {
  it("is a well-formed, accessible SVG for each status, embeddable by any site; 404 JSON for private or unknown watches", async () => {
    const query = "badge statuses";
    const id = await publicWatch(query);
    const get = visitor();
    const badge = async () => {
      const r = await get(`/api/v1/public/tasks/id/${id}/badge.svg`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
      expect(r.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
      const { svg } = parseSvg(r.text); // throws unless well-formed XML
      expect(svg._attributes).toMatchObject({ xmlns: "http://www.w3.org/2000/svg", role: "img" });
      expect(svg._attributes["aria-label"]).toBe(svg.title._text);
      return svg.title._text;
    };
    expect(await badge()).toBe("watch: paused"); // never run, and paused: not "watching"
    const found = await runNow(id, query, decisionFor({ finding_key: "badge-1" }));
    const date = new Date(found.completed_at);
    const day = `${date.getUTCDate()} ${date.toLocaleString("en", { month: "short", timeZone: "UTC" })} ${date.getUTCFullYear()}`;
    expect(await badge()).toBe(`watch: met · ${day}`);
    await completedByAgent(id, query, decisionFor({ finding_key: "badge-1" }));
    expect(await badge()).toBe(`watch: resolved · ${day}`);

    expect((await api("PATCH", `/api/v1/tasks/${id}/visibility`, { is_public: false })).status).toBe(200);
    const hidden = await get(`/api/v1/public/tasks/id/${id}/badge.svg`);
    expect(hidden).toMatchObject({ status: 404, body: { detail: "Task not found" } });
    expect(hidden.headers.get("cache-control")).toBeNull();
    expect((await get("/api/v1/public/tasks/id/00000000-0000-0000-0000-000000000000/badge.svg")).status).toBe(404);
    expect((await get("/api/v1/public/tasks/id/nope/badge.svg")).body.detail[0]).toMatchObject({
      type: "uuid_parsing",
      loc: ["path", "id"],
    });
  });
});

type RssItem = {
  title: { _cdata: string };
  guid: { _text: string };
  link: { _text: string };
  description: { _cdata: string };
  pubDate: { _text: string };
};

describe("JSON Feed", () => {
  it("carries the 1.1 required fields and the RSS feed's items, retractions included", async () => {
    const query = "feed parity";
    const id = await publicWatch(query);
    await runNow(
      id,
      query,
      decisionFor({ finding_key: "f1", notification: { title: "First <finding> & more", markdown: "m" } }),
    );
    await runNow(id, query, retraction());
    await runNow(
      id,
      query,
      decisionFor({ finding_key: "f2", notification: { title: "Second finding", markdown: "m" } }),
    );
    const get = visitor();

    const json = await get(`/api/v1/public/tasks/id/${id}/feed.json`);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toBe("application/feed+json; charset=utf-8");
    const feed = json.body;
    expect(feed).toMatchObject({
      version: "https://jsonfeed.org/version/1.1",
      title: `Watch: ${query}`,
      home_page_url: expect.stringMatching(new RegExp(`/w/${id}$`)),
      feed_url: expect.stringMatching(new RegExp(`/api/v1/public/tasks/id/${id}/feed\\.json$`)),
    });
    expect(feed.items.length).toBe(3);
    for (const item of feed.items) {
      expect(typeof item.id).toBe("string");
      expect(typeof item.content_html === "string" || typeof item.content_text === "string").toBe(true);
    }

    const rss = xml2js((await get(`/api/v1/public/tasks/id/${id}/rss`)).text, { compact: true }) as {
      rss: { channel: { item: RssItem[] } };
    };
    const rssItems = rss.rss.channel.item.map((i) => ({
      id: i.guid._text,
      url: i.link._text,
      title: i.title._cdata,
      content_html: i.description._cdata,
      date: new Date(i.pubDate._text).toISOString(),
    }));
    const jsonItems = feed.items.map(
      (i: { id: string; url: string; title: string; content_html: string; date_published: string }) => ({
        id: i.id,
        url: i.url,
        title: i.title,
        content_html: i.content_html,
        date: new Date(Math.floor(Date.parse(i.date_published) / 1000) * 1000).toISOString(),
      }),
    );
    expect(jsonItems).toEqual(rssItems);
    expect(jsonItems.map((i: { title: string }) => i.title)).toEqual([
      "Second finding",
      "Retracted: First <finding> & more",
      "First <finding> & more",
    ]);
  });
});

describe("conditional GET", () => {
  it("answers 304 to a matching If-None-Match on the feeds, the badge and the public JSON, and 200 after a new finding", async () => {
    const query = "conditional reads";
    const id = await publicWatch(query);
    const get = visitor();
    const paths = ["", "/rss", "/feed.json", "/badge.svg"].map((suffix) => `/api/v1/public/tasks/id/${id}${suffix}`);
    const views = async () => (await api("GET", `/api/v1/tasks/${id}`)).body.view_count as number;

    const first = new Map<string, string>();
    for (const path of paths) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get("cache-control"), path).toBe("public, max-age=60");
      first.set(path, r.headers.get("etag")!);
      expect(first.get(path), path).toMatch(/^(W\/)?"[\w-]+"$/);
    }
    expect(first.get(paths[0]!)).toMatch(/^W\//); // the public JSON's tag leaves view_count out

    const counted = await views();
    for (const path of paths) {
      const r = await get(path, { "if-none-match": first.get(path)! });
      expect(r.status, path).toBe(304);
      expect(r.text, path).toBe("");
      expect(r.headers.get("etag"), path).toBe(first.get(path));
      expect(r.headers.get("cache-control"), path).toBe("public, max-age=60");
    }
    expect(await views()).toBe(counted); // a 304 counts no view
    // Any of several tags, a weak form of a strong one, or *: still current.
    expect((await get(paths[3]!, { "if-none-match": `"other", W/${first.get(paths[3]!)}` })).status).toBe(304);
    expect((await get(paths[1]!, { "if-none-match": "*" })).status).toBe(304);
    // A 200 counts a view, and its tag is the same as long as only view_count changed.
    const again = await get(paths[0]!, { "if-none-match": `"stale"` });
    expect(again.status).toBe(200);
    expect(again.headers.get("etag")).toBe(first.get(paths[0]!));
    expect(await views()).toBe(counted + 1);

    await runNow(id, query, decisionFor({ finding_key: "conditional-1" }));
    for (const path of paths) {
      const r = await get(path, { "if-none-match": first.get(path)! });
      expect(r.status, path).toBe(200);
      expect(r.headers.get("etag"), path).not.toBe(first.get(path));
      expect((await get(path, { "if-none-match": r.headers.get("etag")! })).status, path).toBe(304);
    }
  });
});
