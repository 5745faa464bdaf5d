/**
 * The agent's own requests to pages (fetch_page, Gemini's grounding redirects) reach loopback and private addresses
 * only with AGENT_FETCH_ALLOW_PRIVATE=1; WEBHOOK_ALLOW_PRIVATE (set here) opens webhook delivery, not them.
 */
import { describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.WEBHOOK_ALLOW_PRIVATE = "1";
  delete process.env.AGENT_FETCH_ALLOW_PRIVATE;
});

import { fetchPage, webSearch } from "@/server/agent/search";
import { env } from "@/server/env";
import { resolveGroundingRedirects } from "@/server/agent/sources";
import { BlockedAddressError, guardedFetch } from "@/server/net/guarded-fetch";
import { startStub } from "../helpers/stubs/http";

describe("the agent's page reads", () => {
  it("do not open loopback under WEBHOOK_ALLOW_PRIVATE; guardedFetch's allowPrivate does", async () => {
    const local = await startStub((req) =>
      req.url.startsWith("/grounding-api-redirect/")
        ? { status: 302, headers: { location: "https://example.org/" }, text: "" }
        : { text: "<p>internal</p>" },
    );
    await expect(fetchPage(`${local.url}/admin`)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(fetchPage(local.url.replace("127.0.0.1", "localhost"))).rejects.toThrow(/non-public address/);
    const link = { url: `${local.url}/grounding-api-redirect/x`, title: "example.org" };
    expect(await resolveGroundingRedirects([link], `${local.url}/v1beta`)).toEqual([link]);
    expect(local.requests).toHaveLength(0);

    const res = await guardedFetch(`${local.url}/admin`, { allowPrivate: true });
    expect(res).toMatchObject({ status: 200, body: "<p>internal</p>" });
    await local.close();
  });
});

describe("web search", () => {
  it("reads SearXNG's results, follows a redirect, and says what a failing provider answered", async () => {
    const searx = await startStub((req) =>
      req.url.startsWith("/old/")
        ? { status: 301, headers: { location: req.url.replace("/old/", "/") }, text: "" }
        : req.url.startsWith("/search?")
          ? { json: { results: [{ url: "https://example.org/a", title: "A", content: "about a" }] } }
          : { status: 503, text: "down" },
    );
    const saved = env.SEARXNG_URL;
    try {
      Object.assign(env, { SEARXNG_URL: `${searx.url}/old/` });
      expect(await webSearch("what about a")).toEqual([
        { url: "https://example.org/a", title: "A", snippet: "about a" },
      ]);
      expect(searx.requests.map((r) => r.url)).toEqual([
        "/old/search?q=what+about+a&format=json",
        "/search?q=what+about+a&format=json",
      ]);
      Object.assign(env, { SEARXNG_URL: `${searx.url}/down/` });
      await expect(webSearch("q")).rejects.toThrow("search provider answered HTTP 503");
    } finally {
      Object.assign(env, { SEARXNG_URL: saved });
      await searx.close();
    }
  });
});
