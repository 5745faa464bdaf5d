/**
 * What a browser gets: agent output (attacker-controlled through prompt injection) rendered into the public page,
 * the owner's dashboard page, RSS and email without any way out of its markup; a nonce-based Content-Security-Policy
 * on every page; nosniff and Referrer-Policy on every response. On the shared server: the stub model answers this
 * file's watch as an attacker would. (Without Clerk, no Clerk hosts in the policy: tests/http/providers.test.ts.)
 */
import { parse, parseFragment, type DefaultTreeAdapterMap } from "parse5";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTask, newUser, server, sharedStubs, uniqueId, type TestUser } from "../helpers/api";
import { hostileDecision } from "../helpers/stubs/model";
import { waitFor } from "../helpers/wait";

type Element = DefaultTreeAdapterMap["element"];
type Node = DefaultTreeAdapterMap["node"];

/** Every element of a parsed document or fragment, as a browser's parser builds it. */
function elements(node: Node): Element[] {
  const out: Element[] = [];
  const visit = (n: Node) => {
    if ("tagName" in n) out.push(n);
    if ("content" in n && n.content) visit(n.content as Node);
    if ("childNodes" in n) n.childNodes.forEach(visit);
  };
  visit(node);
  return out;
}
const attr = (el: Element, name: string) => el.attrs.find((a) => a.name === name)?.value;

/** No script-bearing markup came out of the answer: no event handlers, no autofocus, no script-ish hrefs, no images. */
function expectInert(els: Element[]) {
  for (const el of els) {
    for (const a of el.attrs) {
      expect(a.name, `<${el.tagName} ${a.name}="${a.value}">`).not.toMatch(/^on|^autofocus$/);
      if (a.name === "href" || a.name === "src") expect(a.value.trim()).not.toMatch(/^(javascript|vbscript|data):/i);
    }
  }
  expect(els.filter((el) => el.tagName === "img" && attr(el, "src") === "x")).toEqual([]);
}

/** The payload's link, intact with its quotes percent-encoded, marked as user content. */
function expectPayloadLink(els: Element[]) {
  const link = els.find((el) => el.tagName === "a" && (attr(el, "href") ?? "").startsWith("https://example.com/"));
  expect(link, "the payload's link").toBeDefined();
  expect(attr(link!, "href")).toBe("https://example.com/%22onfocus=%22alert(1)%22autofocus=%22%22");
  expect(attr(link!, "rel")).toBe("nofollow noopener ugc");
}

describe("agent output in pages, RSS and email", () => {
  const NAME = "</title><script>alert(7)</script>";
  const stubs = sharedStubs();
  let owner: TestUser;
  let id: string;
  const api = (method: string, path: string, body?: unknown) => call(method, path, { auth: owner.token, body });
  /** A page as the owner's browser asks for it (the session cookie; none for a public page). */
  const page = (path: string) => fetch(`${server().url}${path}`, { headers: { cookie: `__session=${owner.token}` } });

  beforeAll(async () => {
    owner = await newUser(undefined, { username: `xss${Date.now().toString(36)}` });
    // The stub model answers this watch's query as an attacker would: its answer, title and sources are hostile.
    const query = `xss payload watch ${uniqueId("q")}`;
    await stubs.model.answer(query, hostileDecision());
    const created = await api("POST", "/api/v1/tasks", {
      search_query: query,
      name: NAME,
      run_immediately: true,
      notifications: [{ type: "email", address: owner.email }],
    });
    expect(created.status).toBe(200);
    id = created.body.id;
    await waitFor("the run", async () =>
      (await api("GET", `/api/v1/tasks/${id}/executions`)).body.find((e: any) => e.status === "success"),
    );
    expect((await api("PATCH", `/api/v1/tasks/${id}/visibility`, { is_public: true })).status).toBe(200);
  });

  it("the public page and the owner's dashboard page render the answer without an attribute breakout", async () => {
    for (const path of [`/w/${id}`, `/dashboard/w/${id}`]) {
      const res = await page(path);
      expect(res.status, path).toBe(200);
      const els = elements(parse(await res.text()));
      expectInert(els);
      expectPayloadLink(els);
      expect(els.some((el) => el.tagName === "strong")).toBe(true);
      // The source with a javascript: URL was never kept (the agent keeps http(s) sources); the other is a link.
      const sources = els.filter((el) => el.tagName === "a" && attr(el, "href") === "https://example.org/source");
      expect(sources.length).toBeGreaterThan(0);
      for (const a of sources) expect(attr(a, "rel")).toContain("nofollow noopener ugc");
      // The watch's name stays text in the title and the Open Graph tags.
      const title = els.find((el) => el.tagName === "title")!;
      expect(title.childNodes.map((n) => ("value" in n ? n.value : "")).join("")).toContain(NAME);
      if (path.startsWith("/w/"))
        expect(
          attr(
            els.find((el) => attr(el, "property") === "og:title")!,
            "content",
          ),
        ).toBe(NAME);
      expect(
        els.filter((el) => el.tagName === "script" && !attr(el, "src")).every((el) => attr(el, "nonce") !== undefined),
      ).toBe(true);
    }
  });

  it("RSS keeps its structure and carries the same sanitized HTML", async () => {
    const res = await call("GET", `/api/v1/public/tasks/id/${id}/rss`);
    expect(res.status).toBe(200);
    const xml = res.text;
    const items = xml.split("<item>").slice(1);
    expect(items).toHaveLength(1);
    const item = items[0]!;
    // One title, one description, one link: a "]]>" in a title cannot close its CDATA section.
    expect(item.match(/<title>/g)).toHaveLength(1);
    expect(item.match(/<description>/g)).toHaveLength(1);
    expect(item.match(/<link>/g)).toHaveLength(1);
    const description = /<description><!\[CDATA\[([\s\S]*)\]\]><\/description>/.exec(item)![1]!;
    const els = elements(parseFragment(description));
    expectInert(els);
    expectPayloadLink(els);
    expect(els.filter((el) => el.tagName === "a").map((el) => attr(el, "href"))).not.toContain("javascript:alert(5)");
  });

  it("the email's HTML renders the answer through the same renderer, with a readable text part", async () => {
    const mail = await waitFor("the notification email", async () =>
      (await stubs.resend.emails()).find((m) => m.to === owner.email),
    );
    const els = elements(parse(mail.html));
    expectInert(els);
    expectPayloadLink(els);
    expect(els.some((el) => el.tagName === "strong")).toBe(true);
    expect(mail.text).toContain("notes");
    expect(mail.text).toContain("https://example.com/%22onfocus");
    expect(mail.text).not.toContain("**");
  });
});

describe("security headers", () => {
  const base = () => server().url;

  /** script-src's nonce, checked against every <script> of the page. */
  function nonceOf(csp: string) {
    return /script-src[^;]*'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  }

  it("every page has a nonce-based policy, a fresh nonce per response, used on every script of the page", async () => {
    const username = `csp${Date.now().toString(36)}`;
    const owner = await newUser(undefined, { username });
    const task = await createTask(owner.token, { name: "CSP watch" });
    await call("PATCH", `/api/v1/tasks/${task.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    const cookie = `__session=${owner.token}`;
    const pages = [
      "/",
      "/explore",
      `/w/${task.id}`,
      `/u/${username}`,
      "/dashboard",
      "/dashboard/new",
      `/dashboard/w/${task.id}`,
      "/dashboard/notifications",
      "/dashboard/settings",
      "/sign-in",
      "/sign-up",
      "/docs",
      "/no-such-page",
    ];
    for (const path of pages) {
      const [first, second] = [
        await fetch(`${base()}${path}`, { headers: { cookie } }),
        await fetch(`${base()}${path}`, { headers: { cookie } }),
      ];
      const csp = first.headers.get("content-security-policy") ?? "";
      expect(csp, path).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      for (const directive of ["object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"])
        expect(csp).toContain(directive);
      const nonce = nonceOf(csp)!;
      expect(nonce).not.toBe(nonceOf(second.headers.get("content-security-policy") ?? ""));
      expect(first.headers.get("x-content-type-options")).toBe("nosniff");
      expect(first.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      const scripts = elements(parse(await first.text())).filter((el) => el.tagName === "script");
      expect(scripts.length, `${path} has scripts`).toBeGreaterThan(0);
      expect(
        scripts.map((el) => attr(el, "nonce")),
        path,
      ).toEqual(scripts.map(() => nonce));
    }
  });

  it("with a publishable key, the dashboard and sign-in pages allow exactly Clerk's hosts; its script carries the nonce", async () => {
    const res = await fetch(`${base()}/sign-in`);
    const csp = res.headers.get("content-security-policy")!;
    // pk_test_ZXhhbXBsZS5jbGVyay5hY2NvdW50cy5kZXYk is base64("example.clerk.accounts.dev$").
    const clerk = "https://example.clerk.accounts.dev";
    expect(csp).toContain(
      `script-src 'self' 'nonce-${nonceOf(csp)}' 'strict-dynamic' ${clerk} https://challenges.cloudflare.com https://*.protect.clerk.com;`,
    );
    expect(csp).toContain(`connect-src 'self' ${clerk} https://*.protect.clerk.com:*;`);
    expect(csp).toContain("img-src 'self' data: https://img.clerk.com;");
    expect(csp).toContain("worker-src 'self' blob:;");
    expect(csp).toContain("frame-src https://challenges.cloudflare.com https://*.protect.clerk.com;");
    const clerkScript = elements(parse(await res.text())).find(
      (el) => el.tagName === "script" && (attr(el, "src") ?? "").startsWith(clerk),
    );
    expect(clerkScript, "Clerk's browser SDK").toBeDefined();
    expect(attr(clerkScript!, "nonce")).toBe(nonceOf(csp));
    // The public pages load no Clerk code and allow none.
    expect((await fetch(`${base()}/explore`)).headers.get("content-security-policy")).not.toContain("clerk");
  });

  it("API, RSS, static assets and errors carry nosniff and Referrer-Policy", async () => {
    const owner = await newUser(undefined, { username: `hdr${Date.now().toString(36)}` });
    const task = await createTask(owner.token);
    await call("PATCH", `/api/v1/tasks/${task.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    const landing = await (await fetch(`${base()}/`)).text();
    const asset = /src="(\/_next\/static\/[^"]+\.js)"/.exec(landing)![1]!;
    const responses = [
      await call("GET", "/api/health"),
      await call("GET", "/api/v1/public/tasks"),
      await call("GET", `/api/v1/public/tasks/id/${task.id}/rss`),
      await call("GET", "/api/v1/tasks", { headers: { authorization: "Basic x" } }), // 401
      await call("POST", "/api/v1/tasks", { auth: owner.token, body: { search_query: "" } }),
      await call("GET", "/api/v1/openapi.json"),
      await call("GET", "/docs/assets/init.js"),
      await call("GET", asset),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 401, 422, 200, 200, 200]);
    for (const r of responses) {
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    }
  });

  it("Swagger UI does not keep credentials in localStorage", async () => {
    const init = await call("GET", "/docs/assets/init.js");
    expect(init.text).toContain("persistAuthorization: false");
  });
});
