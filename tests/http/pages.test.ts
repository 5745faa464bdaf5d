/**
 * What the pages offer a visitor while sign-ups are closed (SIGNUPS=waitlist): the waitlist instead of a sign-up, on
 * the home page and at /sign-up, working without JavaScript; a public watch's followers and forks counted apart; and
 * the styled 404 page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnv } from "../global-setup";
import { call, server, testClerkKeys, uniqueId } from "../helpers/api";
import { mintSessionToken } from "../helpers/clerk";
import { startServer, type RunningServer } from "../helpers/server";

let closed: RunningServer;

beforeAll(async () => {
  closed = await startServer({ ...serverEnv(server().clerkPublicPem, server().clerkApiUrl), SIGNUPS: "waitlist" });
});

afterAll(async () => {
  await closed?.stop();
});

const page = (path: string, init?: RequestInit) => fetch(`${closed.url}${path}`, { redirect: "manual", ...init });

describe("sign-ups closed", () => {
  it("the home page and /sign-up offer the waitlist, not a sign-up", async () => {
    const home = await (await page("/")).text();
    expect(home).toContain('action="/waitlist"');
    expect(home).toContain('href="/#waitlist"'); // the header's call to action
    expect(home).not.toContain('href="/sign-up"');
    const signUp = await (await page("/sign-up")).text();
    expect(signUp).toContain('action="/waitlist"');
    expect(signUp).not.toContain("clerk.browser.js");
  });

  it("the home page says where the form's answer put you", async () => {
    // /waitlist sends the visitor back here with the outcome (the form's POST is tested with the route).
    expect(await (await page("/?joined=42")).text()).toContain("You&#x27;re on the waitlist at position 42.");
    const refused = await (
      await page(`/?${new URLSearchParams({ error: "Please enter a valid email address." })}`)
    ).text();
    expect(refused).toContain("Please enter a valid email address.");
    expect(refused).toContain('action="/waitlist"');
  });
});

/** A signed-in user of this test's server. */
async function signIn(username?: string) {
  const token = await mintSessionToken(await testClerkKeys(), uniqueId("user"));
  const api = (method: string, path: string, body?: unknown) =>
    call(method, path, { base: closed.url, auth: token, body });
  expect((await api("POST", "/auth/sync-user")).status).toBe(200);
  if (username) expect((await api("PATCH", "/api/v1/users/me/username", { username })).status).toBe(200);
  return api;
}

describe("a public watch's audience", () => {
  it("counts following and forks apart, each with its own plural", async () => {
    const owner = await signIn(`pages${Date.now().toString(36)}`);
    const name = `Audience ${uniqueId("watch")}`;
    const { body: task } = await owner("POST", "/api/v1/tasks", { name, search_query: name, state: "paused" });
    expect((await owner("PATCH", `/api/v1/tasks/${task.id}/visibility`, { is_public: true })).status).toBe(200);
    const card = async () => {
      const html = await (await page(`/explore?${new URLSearchParams({ q: name })}`)).text();
      return html.slice(html.indexOf(name));
    };
    expect(await card()).toContain("0 following");
    expect(await card()).not.toContain("fork");

    const reader = await signIn();
    expect((await reader("POST", `/api/v1/tasks/${task.id}/follow`, { notifications: [] })).status).toBe(201);
    const forker = await signIn();
    expect((await forker("POST", `/api/v1/tasks/${task.id}/fork`)).status).toBe(200);
    expect((await owner("POST", `/api/v1/tasks/${task.id}/fork`)).status).toBe(200); // the owner's own: not counted
    expect(await card()).toMatch(/1 following.*1 fork</s);
  });
});

describe("a page that does not exist", () => {
  it("is a 404 in the app's shell, with ways back", async () => {
    const res = await page("/no-such-page");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("There is nothing here");
    expect(html).toContain('href="/explore"');
    expect(html).toContain('aria-label="Main"');
  });
});
