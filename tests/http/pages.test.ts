/**
 * What the pages offer a visitor while sign-ups are closed (SIGNUPS=waitlist): the waitlist instead of a sign-up, on
 * the home page and at /sign-up, working without JavaScript; and the styled 404 page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnv } from "../global-setup";
import { server } from "../helpers/api";
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

  it("the form joins the waitlist and the home page says where", async () => {
    const joined = await page("/waitlist", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: `pages-${Date.now().toString(36)}@example.com` }),
    });
    expect(joined.status).toBe(303);
    const back = new URL(joined.headers.get("location")!);
    expect(back.pathname).toBe("/");
    const home = await (await page(`/${back.search}`)).text();
    expect(home).toMatch(/You.{1,6}re on the waitlist at position \d+\./);
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
