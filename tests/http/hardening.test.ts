/**
 * Hardening found by the second outside review, against the shared server: anonymous writes take JSON bodies only
 * (no CORS simple request can make a visitor's browser post them), a domain validation error is a 422 in the built
 * server, every page carries its CSP (prefetches too), the icons are served, and the Open Graph image is one rendering
 * per verdict (tagged with its ETag). The connections per client address: tests/http/robustness.test.ts (a server
 * without TRUST_PROXY, whose trusted proxies are exempt).
 */
import { describe, expect, it } from "vitest";
import { call, createTask, newUser, server } from "../helpers/api";

async function publicWatch() {
  const owner = await newUser(undefined, {
    username: `h${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
  });
  const task = await createTask(owner.token, { name: "Hardening", state: "paused" });
  const visible = await call("PATCH", `/api/v1/tasks/${task.id}/visibility`, {
    auth: owner.token,
    body: { is_public: true },
  });
  expect(visible.status).toBe(200);
  return { owner, id: task.id as string };
}

describe("anonymous writes take a JSON body only", () => {
  it("a follow request without Content-Type: application/json is a 415, with or without a body; the query string is not input", async () => {
    const { id } = await publicWatch();
    const path = `/api/v1/public/tasks/id/${id}/follow`;
    // What a <form> or a no-cors fetch from any web page can send without a preflight.
    const bare = await fetch(`${server().url}${path}?email=victim@example.com`, { method: "POST" });
    expect(bare.status).toBe(415);
    expect((await bare.json()).detail).toMatch(/application\/json/);
    const plain = await call("POST", path, {
      rawBody: JSON.stringify({ email: "victim@example.com" }),
      headers: { "content-type": "text/plain" },
    });
    expect(plain.status).toBe(415);
    const form = await call("POST", `${path}?email=victim@example.com`, {
      rawBody: "email=victim%40example.com",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);

    // JSON, but the address only in the query string: not taken from there.
    const queried = await call("POST", `${path}?email=victim@example.com`, { body: {} });
    expect(queried.status).toBe(422);
    expect(queried.body.detail[0]).toMatchObject({ type: "missing", loc: ["body", "email"] });

    expect((await call("POST", path, { body: { email: "fan@example.com" } })).status).toBe(202);
  });

  it("the waitlist the same", async () => {
    const email = `w${Date.now()}@example.com`;
    const bare = await fetch(`${server().url}/api/v1/public/waitlist?email=${email}`, { method: "POST" });
    expect(bare.status).toBe(415);
    const plain = await call("POST", "/api/v1/public/waitlist", {
      rawBody: JSON.stringify({ email }),
      headers: { "content-type": "text/plain;charset=UTF-8" },
    });
    expect(plain.status).toBe(415);
    expect((await call("POST", "/api/v1/public/waitlist", { body: { email } })).status).toBe(200);
  });

  it("the landing page's waitlist form takes posts from this site only; the dashboard's tRPC endpoint takes JSON only", async () => {
    const email = `form${Date.now()}@example.com`;
    const post = (headers: Record<string, string>) =>
      fetch(`${server().url}/waitlist`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams({ email }).toString(),
      });
    expect((await post({ "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post({ origin: "https://evil.example" })).status).toBe(403);
    expect((await post({ "sec-fetch-site": "same-origin" })).status).toBe(303);

    const { id } = await publicWatch();
    const trpc = await fetch(`${server().url}/api/trpc/follows.byEmail`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ json: { id, email: "victim@example.com" } }),
    });
    expect(trpc.status).toBe(415);
  });

  it("a signed-in write keeps the query parameter the API names (execute?force=true)", async () => {
    const u = await newUser();
    const t = await createTask(u.token, { state: "paused" });
    const first = await call("POST", `/api/v1/tasks/${t.id}/execute`, { auth: u.token });
    expect(first.status).toBe(200);
    const forced = await call("POST", `/api/v1/tasks/${t.id}/execute?force=true`, { auth: u.token });
    expect(forced.status).toBe(200);
  });
});

describe("domain validation errors", () => {
  it("a min over the stored max on PUT is a 422 list, not a 500", async () => {
    const u = await newUser();
    const t = await createTask(u.token, { state: "paused", max_interval_minutes: 240 });
    const r = await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { min_interval_minutes: 300 } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      {
        type: "value_error",
        loc: ["body", "min_interval_minutes"],
        msg: "min_interval_minutes must not be greater than max_interval_minutes",
        input: 300,
      },
    ]);
    const lowered = await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { max_interval_minutes: 10 } });
    expect(lowered.status).toBe(200);
    const max = await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { max_interval_minutes: 5 } });
    expect(max.status).toBe(200);
    const under = await call("PUT", `/api/v1/tasks/${t.id}`, { auth: u.token, body: { min_interval_minutes: 6 } });
    expect(under.status).toBe(422);
    expect(under.body.detail[0].loc).toEqual(["body", "min_interval_minutes"]);
  });
});

describe("pages and icons", () => {
  it("every page carries its Content-Security-Policy, prefetches included", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { purpose: "prefetch" },
      { "sec-purpose": "prefetch" },
      { "next-router-prefetch": "1", rsc: "1" },
    ]) {
      for (const path of ["/", "/explore"]) {
        const res = await fetch(`${server().url}${path}`, { headers });
        await res.arrayBuffer();
        expect(res.headers.get("content-security-policy"), `${path} ${JSON.stringify(headers)}`).toMatch(
          /script-src 'self' 'nonce-[^']+' 'strict-dynamic'/,
        );
      }
    }
  });

  it("an HTML answer outside the pages (a 404 under /_next) still has a policy that runs no script", async () => {
    const res = await fetch(`${server().url}/_next/static/chunks/missing-${Date.now()}.html`);
    await res.arrayBuffer();
    if ((res.headers.get("content-type") ?? "").includes("text/html"))
      expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'|script-src/);
  });

  it("serves /favicon.ico and the app icons the pages link", async () => {
    const ico = await fetch(`${server().url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get("content-type")).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
    const bytes = Buffer.from(await ico.arrayBuffer());
    expect(bytes.readUInt16LE(0)).toBe(0); // ICONDIR: reserved
    expect(bytes.readUInt16LE(2)).toBe(1); // type: icon
    expect(bytes.readUInt16LE(4)).toBeGreaterThanOrEqual(2); // several sizes

    const html = await (await fetch(`${server().url}/`)).text();
    const links = [...html.matchAll(/<link rel="(icon|apple-touch-icon)"[^>]*href="([^"]+)"/g)];
    expect(links.map((l) => l[1])).toEqual(expect.arrayContaining(["icon", "apple-touch-icon"]));
    for (const [, , href] of links) {
      const res = await fetch(new URL(href!.replace(/&amp;/g, "&"), server().url));
      expect(res.status, href).toBe(200);
      expect(res.headers.get("content-type"), href).toMatch(/^image\//);
    }
  });
});

describe("the Open Graph image", () => {
  it("is one rendering per verdict: the same bytes under a strong ETag, 304 to If-None-Match", async () => {
    const { id } = await publicWatch();
    const url = `${server().url}/w/${id}/opengraph-image`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/png");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[^"]+"$/);
    const bytes = Buffer.from(await first.arrayBuffer());
    const second = await fetch(url);
    expect(second.headers.get("etag")).toBe(etag);
    expect(Buffer.from(await second.arrayBuffer()).equals(bytes)).toBe(true);
    const cached = await fetch(url, { headers: { "if-none-match": etag! } });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe("");
  });
});
