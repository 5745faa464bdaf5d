/**
 * Mail that someone else's request sends, and what an owner held back, on a server of its own (one email per
 * recipient per hour, a short window standing in for the hour; a trusted proxy so requests come from many addresses):
 * follow confirmations have caps of their own over normalised addresses and carry no live link of the owner's
 * choosing; they never touch the alert caps; a skipped record counts against nothing; an alert skipped for the hourly
 * cap is sent once the window has passed, also across a restart; and a held finding appears on no public surface.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnv } from "../global-setup";
import { call, server, testClerkKeys, uniqueId } from "../helpers/api";
import { mintSessionToken } from "../helpers/clerk";
import { startAgain, startServer, type RunningServer } from "../helpers/server";
import {
  decisionFor,
  startModelStub,
  startSearxStub,
  stubbedServiceEnv,
  type StubDecision,
} from "../helpers/stubs/model";
import { newestLink, startResendStub } from "../helpers/stubs/receivers";
import { settledSends, waitFor } from "../helpers/wait";

const WINDOW_MS = 6000;
let own: RunningServer;
let model: Awaited<ReturnType<typeof startModelStub>>;
let searx: Awaited<ReturnType<typeof startSearxStub>>;
let resend: Awaited<ReturnType<typeof startResendStub>>;
const answers = new Map<string, StubDecision>();
/** While set, the file's Resend holds every email until it settles: a provider slow to answer. */
let resendHold: Promise<void> | undefined;
const serverVars = () => ({
  ...serverEnv(server().clerkPublicPem, server().stubs.clerk),
  ...stubbedServiceEnv({ model, searx, resend }),
  TRUST_PROXY: "1",
  EMAILS_PER_RECIPIENT_PER_HOUR: "1",
  EMAIL_RECIPIENT_WINDOW_MS: String(WINDOW_MS),
});

beforeAll(async () => {
  model = await startModelStub(
    (query) => answers.get(query) ?? decisionFor({ condition_met: false, finding_key: null }),
  );
  searx = await startSearxStub();
  resend = await startResendStub(async () => {
    await resendHold;
    return { json: { id: `email_${Date.now()}` } };
  });
  own = await startServer(serverVars());
});

afterAll(async () => {
  await own?.stop();
  await Promise.all([model, searx, resend].map((s) => s?.close()));
});

type Opts = { auth?: string; body?: unknown; headers?: Record<string, string> };
const api = (method: string, path: string, opts: Opts = {}) => call(method, path, { base: own.url, ...opts });

async function signIn(username?: string) {
  const clerkId = uniqueId("user");
  const token = await mintSessionToken(await testClerkKeys(), clerkId);
  const synced = await api("POST", "/auth/sync-user", { auth: token });
  expect(synced.status).toBe(200);
  if (username)
    expect((await api("PATCH", "/api/v1/users/me/username", { auth: token, body: { username } })).status).toBe(200);
  return { token, id: synced.body.user.id as string, email: synced.body.user.email as string };
}

type Owner = Awaited<ReturnType<typeof signIn>>;
const username = () => `u${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function watch(owner: Owner, body: Record<string, unknown>, isPublic = true) {
  const t = await api("POST", "/api/v1/tasks", { auth: owner.token, body: { state: "paused", ...body } });
  expect(t.status).toBe(200);
  if (isPublic)
    expect(
      (await api("PATCH", `/api/v1/tasks/${t.body.id}/visibility`, { auth: owner.token, body: { is_public: true } }))
        .status,
    ).toBe(200);
  return t.body.id as string;
}

let ip = 0;
/** An anonymous follow request, each from an address of its own (the per-IP limit is not what is tested here). */
const follow = (id: string, email: string) =>
  api("POST", `/api/v1/public/tasks/id/${id}/follow`, {
    body: { email },
    headers: { "x-forwarded-for": `198.51.${Math.floor(++ip / 250)}.${(ip % 250) + 1}` },
  });

const mailbox = (pattern: RegExp) => resend.emails().filter((m) => pattern.test(m.to));
const quiet = () => new Promise((r) => setTimeout(r, 800));
/** Confirmations are sent after the answers: waits for `n` emails to `pattern`, then a moment more: exactly `n`. */
async function exactly(pattern: RegExp, n: number) {
  await waitFor(`${n} emails to ${pattern}`, async () => mailbox(pattern).length >= n, 30_000);
  await quiet();
  expect(mailbox(pattern)).toHaveLength(n);
}

async function runNow(owner: Owner, id: string) {
  const started = await api("POST", `/api/v1/tasks/${id}/execute`, { auth: owner.token });
  expect(started.status).toBe(200);
  await waitFor("the run", async () => {
    const [latest] = (await api("GET", `/api/v1/tasks/${id}/executions?limit=1`, { auth: owner.token })).body;
    return latest?.id === started.body.id && latest.status === "success";
  });
  return started.body.id as string;
}

const sendsOf = async (owner: Owner, id: string, n: number) =>
  waitFor(`${n} settled sends`, async () => {
    const page = (await api("GET", `/api/v1/notifications/sends?task_id=${id}&limit=100`, { auth: owner.token })).body;
    return settledSends(page, n);
  });

describe("follow confirmations", () => {
  it("15 requests for victim+N@ put one email in the inbox; Gmail's dots and googlemail.com are the same mailbox", async () => {
    const owner = await signIn(username());
    const id = await watch(owner, { search_query: "tagged addresses" });
    for (let i = 1; i <= 15; i++) expect((await follow(id, `Victim+${i}@Example.com`)).status).toBe(202);
    expect((await follow(id, "victim@example.com")).status).toBe(202);
    await exactly(/^victim(\+\d+)?@example\.com$/i, 1);

    for (const address of ["jane.doe@gmail.com", "JaneDoe+watch@gmail.com", "j.a.n.e.d.o.e@googlemail.com"])
      expect((await follow(id, address)).status).toBe(202);
    await exactly(/@(gmail|googlemail)\.com$/i, 1);
  });

  it("at most 3 per address per day across watches, and 50 per watch per day", { timeout: 120_000 }, async () => {
    const owner = await signIn(username());
    for (let w = 0; w < 5; w++) {
      const id = await watch(owner, { search_query: `roaming ${w}` });
      expect((await follow(id, "roamer@example.com")).status).toBe(202);
    }
    await exactly(/^roamer@example\.com$/, 3);

    const busy = await watch(owner, { search_query: "a busy watch" });
    for (let i = 0; i < 55; i++) expect((await follow(busy, `crowd${i}@example.net`)).status).toBe(202);
    await exactly(/^crowd\d+@example\.net$/, 50);
  });

  it("says nothing live of the owner's choosing: no link or domain in the subject, defanged in the body", async () => {
    const owner = await signIn(username());
    const id = await watch(owner, {
      search_query: "prize",
      name: "WIN A PRIZE at https://prize.example/claim or www.prize.example",
    });
    expect((await follow(id, "prize-target@example.com")).status).toBe(202);
    const [mail] = await waitFor("the confirmation", async () => {
      const mails = mailbox(/^prize-target@example\.com$/);
      return mails.length > 0 && mails;
    });
    expect(mail.subject).not.toMatch(/prize|https?:|www\./i);
    for (const part of [mail.html, mail.text]) {
      expect(part).not.toContain("https://prize.example");
      expect(part).not.toContain("www.prize.example");
      expect(part).toContain("prize[.]example");
    }
    expect(mail.html).not.toMatch(/href="[^"]*prize/);
  });
});

describe("nobody can silence someone's alerts", () => {
  it("follow requests naming a user's address do not count against that user's alert caps", async () => {
    const victim = await signIn(username());
    const id = await watch(victim, {
      search_query: "silenced alerts",
      notifications: [{ type: "email", address: victim.email }],
    });
    // The attacker's own public watch, and the victim's address ten times.
    const attacker = await signIn(username());
    const bait = await watch(attacker, { search_query: "bait" });
    for (let i = 0; i < 10; i++) expect((await follow(bait, victim.email)).status).toBe(202);

    answers.set(
      "silenced alerts",
      decisionFor({ finding_key: "silenced-1", notification: { title: "Found it", markdown: "!" } }),
    );
    await runNow(victim, id);
    const { sends } = await sendsOf(victim, id, 1);
    expect(sends.map((s: { event: string; status: string }) => [s.event, s.status])).toEqual([
      ["task.condition_met", "sent"],
    ]);
    expect(mailbox(new RegExp(`^${victim.email}$`)).map((m) => m.subject)).toContain("Found it");
  });

  it("a skipped send counts against nothing: a test send to a new address still gets its verification out", async () => {
    const owner = await signIn();
    const address = `second-inbox-${Date.now()}@example.com`;
    const id = await watch(owner, { search_query: "verify me", notifications: [{ type: "email", address }] }, false);
    const test = await api("POST", `/api/v1/tasks/${id}/notifications/test`, {
      auth: owner.token,
      body: { type: "email" },
    });
    expect(test.body).toEqual({
      status: "skipped",
      failure: "refused",
      error_message: `address not verified: verification link sent to ${address}`,
    });
    expect(mailbox(new RegExp(`^${address}$`)).map((m) => m.subject)).toEqual(["Confirm your address for Watch"]);
    // Again: still waiting for the same link, nothing more sent.
    const again = await api("POST", `/api/v1/tasks/${id}/notifications/test`, {
      auth: owner.token,
      body: { type: "email" },
    });
    expect(again.body.error_message).toBe(`address not verified: waiting for ${address} to confirm`);
    expect(mailbox(new RegExp(`^${address}$`))).toHaveLength(1);
  });
});

describe("held findings are never public", () => {
  const MARKER = "zanzibarquux";

  it("public task JSON, pages, explore, feeds, badge and Open Graph image show the notified finding, never the held one", async () => {
    const name = username();
    const owner = await signIn(name);
    const query = `held back ${Date.now()}`;
    const id = await watch(owner, { search_query: query, name: "Held back", min_confidence: 0.95 });

    answers.set(
      query,
      decisionFor({
        confidence: 0.99,
        finding_key: "sure",
        answer: "The sure thing happened.",
        notification: { title: "The sure thing", markdown: "It happened." },
      }),
    );
    const notified = await runNow(owner, id);
    const ogBefore = Buffer.from(await (await fetch(`${own.url}/w/${id}/opengraph-image`)).arrayBuffer());
    const badgeBefore = await (await fetch(`${own.url}/api/v1/public/tasks/id/${id}/badge.svg`)).text();

    answers.set(
      query,
      decisionFor({
        confidence: 0.9,
        finding_key: "unsure",
        answer: `Rumour: ${MARKER} happened.`,
        evidence: `A forum post says ${MARKER}.`,
        sources: [{ url: `https://${MARKER}.example/post`, title: `${MARKER} forum` }],
        notification: { title: `${MARKER} rumour`, markdown: `${MARKER}!` },
      }),
    );
    const held = await runNow(owner, id);
    const own_ = (await api("GET", `/api/v1/tasks/${id}`, { auth: owner.token })).body;
    expect(own_.last_execution).toMatchObject({ id: held, result: { gate: { passed: false } } }); // the owner sees it

    const reader = await signIn();
    expect(
      (await api("POST", `/api/v1/tasks/${id}/follow`, { auth: reader.token, body: { notifications: [] } })).status,
    ).toBe(201);
    const surfaces: [string, string][] = [];
    const get = async (label: string, path: string, auth?: string) => {
      const res = await fetch(`${own.url}${path}`, { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
      expect(res.status, label).toBe(200);
      surfaces.push([label, await res.text()]);
    };
    await get("public task JSON", `/api/v1/public/tasks/id/${id}`);
    await get("a signed-in reader's task JSON", `/api/v1/tasks/${id}`, reader.token);
    await get("the reader's follows", "/api/v1/follows", reader.token);
    await get("public search", `/api/v1/public/tasks?q=${encodeURIComponent(query)}`);
    await get("the watch's page", `/w/${id}`);
    await get("the owner's page", `/u/${name}`);
    await get("explore", `/explore?q=${encodeURIComponent(query)}`);
    await get("RSS", `/api/v1/public/tasks/id/${id}/rss`);
    await get("JSON Feed", `/api/v1/public/tasks/id/${id}/feed.json`);
    await get("badge", `/api/v1/public/tasks/id/${id}/badge.svg`);
    for (const [label, body] of surfaces) expect(body, label).not.toContain(MARKER);

    const publicView = JSON.parse(surfaces[0]![1]);
    expect(publicView.last_execution.id).toBe(notified);
    expect(publicView.last_execution_id).toBe(notified);
    expect(publicView.resolution.status).toBe("met");
    expect(surfaces.find(([l]) => l === "RSS")![1]).toContain("The sure thing");
    expect(surfaces.find(([l]) => l === "badge")![1]).toBe(badgeBefore);
    const ogAfter = Buffer.from(await (await fetch(`${own.url}/w/${id}/opengraph-image`)).arrayBuffer());
    expect(ogAfter.equals(ogBefore)).toBe(true);
  });

  it("a watch whose only finding is held shows none", async () => {
    const name = username();
    const owner = await signIn(name);
    const query = `only held ${Date.now()}`;
    const id = await watch(owner, { search_query: query, min_sources: 3 });
    answers.set(
      query,
      decisionFor({
        finding_key: "thin",
        answer: `${MARKER} said so.`,
        notification: { title: MARKER, markdown: MARKER },
      }),
    );
    await runNow(owner, id);
    for (const path of [`/w/${id}`, `/api/v1/public/tasks/id/${id}`, `/api/v1/public/tasks/id/${id}/rss`]) {
      const body = await (await fetch(`${own.url}${path}`)).text();
      expect(body, path).not.toContain(MARKER);
      expect(body, path).not.toContain("Condition met");
    }
    const view = (await api("GET", `/api/v1/public/tasks/id/${id}`)).body;
    expect(view.last_execution).toBeNull();
    expect(view.resolution.status).toBe("watching");
  });
});

describe("an alert skipped for the hourly cap", () => {
  it(
    "is sent once the window has passed, as a new record, also when the server restarts meanwhile",
    { timeout: 90_000 },
    async () => {
      const owner = await signIn();
      const id = await watch(
        owner,
        { search_query: "two in a row", notifications: [{ type: "email", address: owner.email }] },
        false,
      );
      answers.set(
        "two in a row",
        decisionFor({ finding_key: "one", notification: { title: "First news", markdown: "1" } }),
      );
      await runNow(owner, id);
      // The first alert settled before the second run: deliveries are workflows of their own, and a busy machine may
      // otherwise claim the second before the first.
      await sendsOf(owner, id, 1);
      answers.set(
        "two in a row",
        decisionFor({ finding_key: "two", notification: { title: "Second news", markdown: "2" } }),
      );
      const second = await runNow(owner, id);
      const skipped = await sendsOf(owner, id, 2);
      expect(skipped.sends.find((s: { execution_id: string }) => s.execution_id === second)).toMatchObject({
        status: "skipped",
        attempt: 1,
        error_message: expect.stringMatching(/^hourly email limit reached/),
      });

      await own.kill();
      own = await startAgain(own, serverVars());
      const { sends } = await waitFor(
        "the held-back alert",
        async () => {
          const page = (await api("GET", `/api/v1/notifications/sends?task_id=${id}&limit=100`, { auth: owner.token }))
            .body;
          return (
            page.sends.some((s: { attempt: number; status: string }) => s.attempt === 2 && s.status === "sent") && page
          );
        },
        60_000,
      );
      expect(
        sends
          .filter((s: { execution_id: string }) => s.execution_id === second)
          .map((s: { attempt: number; status: string }) => [s.attempt, s.status])
          .sort(),
      ).toEqual([
        [1, "skipped"],
        [2, "sent"],
      ]);
      expect(mailbox(new RegExp(`^${owner.email}$`)).filter((m) => m.subject === "Second news")).toHaveLength(1);
    },
  );
});

describe("a follow's confirmation", () => {
  it(
    "is sent after the answer, whether the address is new, pending or confirmed, and still sent when the server is killed after answering",
    { timeout: 240_000 },
    async () => {
      // The provider holds every email until released.
      let release = () => {};
      resendHold = new Promise<void>((r) => (release = r));
      const to = (address: string) => mailbox(new RegExp(`^${address.replace(/\./g, "\\.")}$`));
      try {
        const owner = await signIn(username());
        const id = await watch(owner, { search_query: "confirmations after the answer" });
        const followOn = (email: string) => follow(id, email);

        // A new address: answered while its email is still held by the provider (the answer never waits for it).
        const first = await followOn("first@example.com");
        expect(first.status).toBe(202);
        await waitFor("the first confirmation at the provider", async () => to("first@example.com").length === 1);
        // Pending, and another new address: the same answer; the second's email waits behind the first's.
        expect(await followOn("first@example.com")).toMatchObject({ status: 202, body: first.body });
        expect(await followOn("second@example.com")).toMatchObject({ status: 202, body: first.body });
        await quiet();
        expect(to("second@example.com")).toHaveLength(0);

        // Killed after answering: the second confirmation was owed, and is sent at the next start.
        await own.kill();
        release();
        own = await startAgain(own, serverVars());
        const [mail] = await waitFor("the second confirmation, after the restart", async () => {
          const mails = to("second@example.com");
          return mails.length > 0 && mails;
        });
        // The first one was under way when the server died: never sent twice.
        expect(to("first@example.com")).toHaveLength(1);

        // Confirmed: the same answer again, and nothing sent.
        const link = newestLink([mail!], "second@example.com", "/follow/confirm")!;
        const confirmed = await api("POST", "/api/v1/public/follows/confirm", {
          body: { token: link.searchParams.get("token") },
        });
        expect(confirmed.body).toEqual({ task_id: id, email: "second@example.com" });
        expect(await followOn("second@example.com")).toMatchObject({ status: 202, body: first.body });
        await quiet();
        expect(to("second@example.com")).toHaveLength(1);
      } finally {
        release();
        resendHold = undefined;
      }
    },
  );
});
