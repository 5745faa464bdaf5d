/**
 * What the pages offer a visitor while sign-ups are closed (SIGNUPS=waitlist): the waitlist instead of a sign-up, on
 * the home page and at /sign-up, working without JavaScript. A server of its own: the shared one has sign-ups open.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnv } from "../global-setup";
import { server } from "../helpers/api";
import { startServer, type RunningServer } from "../helpers/server";

let closed: RunningServer;

beforeAll(async () => {
  closed = await startServer({ ...serverEnv(server().clerkPublicPem, server().stubs.clerk), SIGNUPS: "waitlist" });
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
