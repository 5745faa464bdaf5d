/**
 * Pages, rendered by Next.js on the shared server: a public watch's page, the directory, a user's page and the landing
 * page; the verdict card, its feeds and badge snippets; the Open Graph image; a retracted finding marked; the pages
 * that links in emails open, which only offer their action (mail scanners follow links); a public watch's followers and
 * forks counted apart; a watch's dashboard page marking its findings seen; the styled 404 page. (With sign-ups closed: signups-closed.test.ts.) What the API behind them
 * does is tested in-process (tests/service), rate limits included, except the buckets pages share with their API twins.
 */
import { describe, expect, it } from "vitest";
import { call, createTask, newUser, server, sharedStubs, uniqueId } from "../helpers/api";
import { decisionFor } from "../helpers/stubs/model";
import { waitFor } from "../helpers/wait";

const base = () => server().url;
const stubs = sharedStubs();

let visitors = 0;
/** A visitor from an address of its own (the shared server trusts X-Forwarded-For), not the SERVICE_NOAUTH user. */
function visitor() {
  const ip = `198.18.${process.pid % 250}.${++visitors}`;
  return {
    page: (path: string, headers: Record<string, string> = {}) =>
      fetch(`${base()}${path}`, { headers: { "x-forwarded-for": ip, ...headers } }),
    call: (method: string, path: string, body?: unknown) =>
      call(method, path, { body, headers: { "x-forwarded-for": ip } }),
  };
}

/** A public watch of a new user with a username; `query` steers the stub model. */
async function publicWatch(query: string, body: Record<string, unknown> = {}) {
  const username = uniqueId("pg").replace(/_/g, "").slice(0, 30);
  const owner = await newUser(undefined, { username });
  const task = await createTask(owner.token, { search_query: query, name: query, state: "paused", ...body });
  const published = await call("PATCH", `/api/v1/tasks/${task.id}/visibility`, {
    auth: owner.token,
    body: { is_public: true },
  });
  expect(published.status).toBe(200);
  return { owner, username, id: task.id as string };
}

/** Runs the watch now as its owner and waits for the run to finish. */
async function runNow(auth: string, id: string) {
  // A 409 while a check the scheduler started (a watch just resumed is due) is still running: started once it ends.
  const started = await waitFor("a check of its own", async () => {
    const answer = await call("POST", `/api/v1/tasks/${id}/execute`, { auth });
    if (answer.status !== 409) return answer;
  });
  expect(started.status).toBe(200);
  return waitFor("the run", async () => {
    const [latest] = (await call("GET", `/api/v1/tasks/${id}/executions?limit=1`, { auth })).body;
    return latest?.id === started.body.id && latest.status !== "pending" && latest.status !== "running" && latest;
  });
}

/** The newest link to `path` in the newest email to `to`, once there is one. */
const linkIn = (to: string, path: string) =>
  waitFor(`an email to ${to} with a link to ${path}`, async () => stubs.resend.linkIn(to, path));

describe("a public watch's page", () => {
  it("renders server-side with the watch's content, meta tags and RSS link; private watches are 404", async () => {
    const username = uniqueId("pg").replace(/_/g, "").slice(0, 30);
    const owner = await newUser(undefined, { username });
    const t = await createTask(owner.token, {
      name: "Server rendered watch",
      condition_description: "it renders <b>safely</b>",
    });
    const anonymous = visitor();
    expect((await anonymous.page(`/w/${t.id}`)).status).toBe(404);
    await call("PATCH", `/api/v1/tasks/${t.id}/visibility`, { auth: owner.token, body: { is_public: true } });
    const html = await (await anonymous.page(`/w/${t.id}`)).text();
    expect(html).toContain("Server rendered watch");
    expect(html).toContain("it renders &lt;b&gt;safely&lt;/b&gt;");
    expect(html).toContain('property="og:title"');
    expect(html).toMatch(/<link rel="alternate" type="application\/rss\+xml"/);
    expect(html).not.toContain("noindex");
    const explore = await (await anonymous.page(`/explore?q=Server+rendered`)).text();
    expect(explore).toContain("Server rendered watch");
    const user = await (await anonymous.page(`/u/${username}`)).text();
    expect(user).toContain("Server rendered watch");
    const landing = await (await anonymous.page("/")).text();
    expect(landing).toContain('href="/sign-up"'); // sign-ups are open unless SIGNUPS=waitlist (signups-closed.test.ts)
    expect(landing).not.toContain('action="/waitlist"');

    // Signed in (Clerk session cookie), the owner's own page views are not counted; anyone else's are,
    // and signed-in visitors get a Fork button.
    const views = async () =>
      (await call("GET", `/api/v1/public/tasks/id/${t.id}`, { auth: owner.token })).body.view_count as number;
    // The anonymous view above is written with its batch of counts: wait for it, or it could land between two reads.
    await waitFor("the anonymous view counted", async () => (await views()) === 1, 5_000);
    const before = 1;
    const ownerView = await (await anonymous.page(`/w/${t.id}`, { cookie: `__session=${owner.token}` })).text();
    expect(await views()).toBe(before);
    expect(ownerView).toContain(">Fork</button>");
    expect(html).toContain("Sign in to fork");
    await anonymous.page(`/w/${t.id}`);
    await waitFor("the view counted", async () => (await views()) === before + 1, 5_000);
  });

  it("leads with the verdict card, links both feeds and offers the badge's embed snippets", async () => {
    const query = `Is Postgres 19 beta out? ${uniqueId("q")}`;
    await stubs.model.answer(query, decisionFor({ finding_key: "page-1", answer: "Beta 1 shipped on **2 Nov**." }));
    const { owner, id } = await publicWatch(query);
    await runNow(owner.token, id);
    const html = await (await visitor().page(`/w/${id}`)).text();
    expect(html).toMatch(/<link rel="alternate" type="application\/rss\+xml" href="[^"]+\/rss"/);
    expect(html).toMatch(/<link rel="alternate" type="application\/feed\+json" href="[^"]+\/feed\.json"/);
    const card = html.slice(html.indexOf('aria-labelledby="verdict-status verdict"'), html.indexOf('id="embed"'));
    expect(card).toMatch(/Found <time [^>]+>\d{1,2} \w{3} \d{4}<\/time>/);
    expect(card).toContain(">Yes, per these sources</h2>");
    expect(card).toContain("<strong>2 Nov</strong>");
    expect(card).toContain("PostgreSQL 19 Beta 1 Released");
    expect(html.indexOf('aria-labelledby="verdict-status verdict"')).toBeLessThan(html.indexOf("Searching"));
    expect(html).toContain(`/api/v1/public/tasks/id/${id}/badge.svg)](`);
    expect(html).toContain(`&lt;img src=&quot;`);
    expect(html).toContain(">Copy Markdown</button>");
    expect(html).toContain(">Copy HTML</button>");
  });

  it("says the verdict's state in words: Paused before any check, Met once found (paused or not), the answer once; Follow comes before the findings; cards say the answer", async () => {
    const query = `Is Python 3.15 out? ${uniqueId("q")}`;
    await stubs.model.answer(query, decisionFor({ finding_key: "py-1", answer: "Python 3.15.0 shipped today. More." }));
    const { owner, id, username } = await publicWatch(query);
    const before = await (await visitor().page(`/w/${id}`)).text();
    expect(before).toContain('data-state="paused"');
    expect(before).toContain("It was paused before its first check.");
    expect(before).not.toMatch(/>(Watching|Not yet)</);

    await runNow(owner.token, id);
    const html = await (await visitor().page(`/w/${id}`)).text();
    const card = html.slice(
      html.indexOf('aria-labelledby="verdict-status verdict"'),
      html.indexOf('id="follow-title"'),
    );
    expect(card).toContain('data-testid="verdict-state">Met</span>');
    expect(card).toContain(">Yes, per these sources</h2>");
    // Once on the page (the finding's card does not repeat it); the scripts carry React's copy of the page.
    const shown = html.replace(/<script[\s\S]*?<\/script>/g, "");
    expect(shown.match(/Python 3\.15\.0 shipped today\./g)).toHaveLength(1);
    expect(html.indexOf('id="follow-title"')).toBeLessThan(html.indexOf('id="findings-title"'));
    for (const list of [`/explore?q=${encodeURIComponent(query)}`, `/u/${username}`]) {
      const cards = await (await visitor().page(list)).text();
      expect(cards).toContain('data-testid="latest-answer">Python 3.15.0 shipped today.</p>');
      expect(cards).toContain('data-testid="verdict-state">Met</span>');
    }
  });

  it("has an Open Graph image: a PNG of the verdict; 404 for a private watch", async () => {
    const query = `Is the 🦄 release out? ソフト ${uniqueId("q")}`;
    await stubs.model.answer(query, decisionFor({ finding_key: "og-1" }));
    const { owner, id } = await publicWatch(query);
    await runNow(owner.token, id);
    const anonymous = visitor();
    const res = await anonymous.page(`/w/${id}/opengraph-image`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(res.headers.get("content-security-policy")).toBeNull(); // an image, not a page
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);

    const page = await (await anonymous.page(`/w/${id}`)).text();
    expect(page).toMatch(new RegExp(`<meta property="og:image" content="[^"]*/w/${id}/opengraph-image`));

    await call("PATCH", `/api/v1/tasks/${id}/visibility`, { auth: owner.token, body: { is_public: false } });
    const hidden = await anonymous.page(`/w/${id}/opengraph-image`);
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toEqual({ detail: "Task not found" });
  });

  it("marks a retracted finding", async () => {
    const query = `retracted news ${uniqueId("q")}`;
    const { owner, id } = await publicWatch(query);
    await stubs.model.answer(
      query,
      decisionFor({
        finding_key: "launch-announced",
        notification: { title: "Launch announced", markdown: "It is announced." },
      }),
    );
    await runNow(owner.token, id);
    await stubs.model.answer(
      query,
      decisionFor({
        condition_met: false,
        notify: false,
        notification: null,
        retracts_previous: true,
        answer: "The announcement was withdrawn.",
      }),
    );
    await runNow(owner.token, id);
    const page = await (await visitor().page(`/w/${id}`)).text();
    expect(page).toMatch(/Retracted: (<!-- -->)?Launch announced/);
  });
});

describe("a watch's dashboard page", () => {
  it("marks the watch's findings seen when its owner opens it", async () => {
    const owner = await newUser();
    const task = await createTask(owner.token, { search_query: uniqueId("pages seen"), state: "paused" });
    await runNow(owner.token, task.id); // the stub model's default answer: a finding, sent
    const unseen = async () => (await call("GET", `/api/v1/tasks/${task.id}`, { auth: owner.token })).body.unseen;
    expect(await unseen()).toBe(true);
    const page = await fetch(`${base()}/dashboard/w/${task.id}`, { headers: { cookie: `__session=${owner.token}` } });
    expect(page.status).toBe(200);
    expect(await unseen()).toBe(false);
  });
});

describe("the pages links in emails open", () => {
  it("confirm a follow, verify an address, pause a watch, unsubscribe: each page only offers its button", async () => {
    const query = `links in emails ${uniqueId("q")}`;
    const friend = `${uniqueId("friend")}@example.com`;
    const fan = `${uniqueId("fan")}@example.com`;
    const { owner, id } = await publicWatch(query, {
      notifications: [{ type: "email", address: friend }],
    });
    const anonymous = visitor();

    // Follow by email: the confirmation link's page; opening it is not a confirmation.
    expect((await anonymous.call("POST", `/api/v1/public/tasks/id/${id}/follow`, { email: fan })).status).toBe(202);
    const confirm = await linkIn(fan, "/follow/confirm");
    const confirmPage = await (await anonymous.page(`${confirm.pathname}${confirm.search}`)).text();
    expect(confirmPage).toContain("Confirm and follow");
    expect(confirmPage).toContain(fan); // the page names the address and the watch
    expect(confirmPage).toContain(`href="/w/${id}"`);
    const watch = async () => (await call("GET", `/api/v1/tasks/${id}`, { auth: owner.token })).body;
    expect((await watch()).subscriber_count).toBe(0);
    const confirmed = await anonymous.call("POST", "/api/v1/public/follows/confirm", {
      token: confirm.searchParams.get("token"),
    });
    expect(confirmed.status).toBe(200);

    // A run finds something: the follower's email, and a verification email to the owner's other address.
    await runNow(owner.token, id);
    const verify = await linkIn(friend, "/email/verify");
    const verifyPage = await anonymous.page(`${verify.pathname}${verify.search}`);
    expect(verifyPage.status).toBe(200);
    expect(await verifyPage.text()).toContain("Confirm this address");
    const unsubscribe = await linkIn(fan, "/unsubscribe");
    expect(await (await anonymous.page(`${unsubscribe.pathname}${unsubscribe.search}`)).text()).toContain(
      "Unsubscribe",
    );
    expect((await watch()).subscriber_count).toBe(1);

    // Confirmed, the owner's address gets the next finding, with its link to pause the watch.
    expect(
      (await anonymous.call("POST", "/api/v1/email/verify", { token: verify.searchParams.get("token") })).status,
    ).toBe(200);
    await stubs.model.answer(query, decisionFor({ finding_key: "links-2" }));
    expect((await call("PUT", `/api/v1/tasks/${id}`, { auth: owner.token, body: { state: "active" } })).status).toBe(
      200,
    );
    await runNow(owner.token, id);
    const pause = await linkIn(friend, "/email/pause");
    expect(await (await anonymous.page(`${pause.pathname}${pause.search}`)).text()).toContain("Pause the watch");
    expect((await watch()).state).toBe("active");
  });
});

describe("rate limits of pages", () => {
  /** The shared server's windows (a minute, aligned to the clock): waits for the next one unless `ms` are left. */
  async function roomInWindow(ms: number) {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < ms) await new Promise((r) => setTimeout(r, left + 100));
  }
  const statuses = async (n: number, request: () => Promise<{ status: number }>) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push((await request()).status);
    return out;
  };

  it("a page view counts in its API twin's bucket, a refused one is not counted; a user's page shares the directory's; the Open Graph image the badge's", async () => {
    const { owner, username, id } = await publicWatch(`page limits ${uniqueId("q")}`);
    const views = async () => (await call("GET", `/api/v1/tasks/${id}`, { auth: owner.token })).body.view_count;

    await roomInWindow(20_000);
    const reader = visitor();
    // 19 API reads + 1 page view use up the 20 of the public-by-id bucket.
    expect(await statuses(19, () => reader.call("GET", `/api/v1/public/tasks/id/${id}`))).toEqual(Array(19).fill(200));
    expect((await reader.page(`/w/${id}`)).status).toBe(200);
    expect((await reader.call("GET", `/api/v1/public/tasks/id/${id}`)).status).toBe(429);
    const counted = await views();
    expect(await (await reader.page(`/w/${id}`)).text()).toContain("Too many requests");
    expect(await views()).toBe(counted); // a refused page view is not counted

    // A user's page lists public watches: it shares the directory's bucket of 10.
    await roomInWindow(15_000);
    const browser = visitor();
    expect(await statuses(9, () => browser.call("GET", "/api/v1/public/tasks"))).toEqual(Array(9).fill(200));
    expect((await browser.page(`/u/${username}`)).status).toBe(200);
    expect(await (await browser.page(`/u/${username}`)).text()).toContain("Too many requests");

    // The badge and the Open Graph image: one bucket of 60.
    await visitor().page(`/w/${id}/opengraph-image`); // the first image warms the renderer up
    await roomInWindow(20_000);
    const embedder = visitor();
    const badge = () => embedder.call("GET", `/api/v1/public/tasks/id/${id}/badge.svg`);
    expect(await statuses(59, badge)).toEqual(Array(59).fill(200));
    expect((await embedder.page(`/w/${id}/opengraph-image`)).status).toBe(200);
    expect((await embedder.page(`/w/${id}/opengraph-image`)).status).toBe(429);
    expect((await badge()).status).toBe(429);
  }, 180_000); // up to three waits for room in a window
});

describe("a public watch's audience", () => {
  it("counts following and forks apart, each with its own plural", async () => {
    const name = `Audience ${uniqueId("watch")}`;
    const { owner, id } = await publicWatch(name);
    const card = async () => {
      const html = await (await visitor().page(`/explore?${new URLSearchParams({ q: name })}`)).text();
      return html.slice(html.indexOf(name));
    };
    expect(await card()).toContain("0 following");
    expect(await card()).not.toContain("fork");

    const reader = await newUser();
    expect(
      (await call("POST", `/api/v1/tasks/${id}/follow`, { auth: reader.token, body: { notifications: [] } })).status,
    ).toBe(201);
    const forker = await newUser();
    expect((await call("POST", `/api/v1/tasks/${id}/fork`, { auth: forker.token })).status).toBe(200);
    expect((await call("POST", `/api/v1/tasks/${id}/fork`, { auth: owner.token })).status).toBe(200); // not counted
    expect(await card()).toMatch(/1 following.*1 fork</s);
  });
});

describe("a page that does not exist", () => {
  it("is a 404 in the app's shell, with ways back", async () => {
    const res = await visitor().page("/no-such-page");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("There is nothing here");
    expect(html).toContain('href="/explore"');
    expect(html).toContain('aria-label="Main"');
  });
});
