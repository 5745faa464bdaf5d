/**
 * Test fixtures: which server a spec talks to, signed-in Clerk users, accessibility checks and screenshots (one view, or
 * the four a page is looked at in).
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test as base, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";
import { importPKCS8 } from "jose";
import { mintSessionToken } from "../tests/helpers/clerk";

const env = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run through e2e/playwright.config.ts (global setup)`);
  return v;
};

/** A fresh Clerk user id; "_dev" gives the developer role in the Clerk stub's profile. */
export const newClerkUserId = (role: "user" | "developer" = "user") =>
  `user_e2e${role === "developer" ? "_dev" : ""}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** A Clerk session token for `userId`, signed with the test key the Clerk-mode server trusts. */
export async function sessionToken(
  userId: string,
  opts: { expiresIn?: number; issuedAgo?: number } = { expiresIn: 3600 },
) {
  const keys = { publicPem: "", privateKey: await importPKCS8(env("E2E_CLERK_PRIVATE_PEM"), "RS256") };
  return mintSessionToken(keys, userId, opts);
}

/** Signs a browser context in as `userId`: the cookies Clerk's own browser SDK would have set. */
export async function signIn(context: BrowserContext, baseURL: string, userId: string) {
  const token = await sessionToken(userId);
  const now = Math.floor(Date.now() / 1000);
  await context.addCookies(
    [
      ["__session", token],
      ["__client_uat", String(now - 30)],
      ["__clerk_db_jwt", "dvb_e2e"],
    ].map(([name, value]) => ({ name: name!, value: value!, url: baseURL })),
  );
  return token;
}

/** Clerk's browser SDK lives on the internet; offline, fail its requests at once instead of waiting on DNS. */
async function offline(context: BrowserContext) {
  await context.route(/clerk\.accounts\.dev|clerk\.com|accounts\.dev/, (route) => route.abort());
}

/**
 * The rules whose outcome a colour scheme can change: the schemes differ in colours only (no element is shown in one
 * and hidden in the other), so the rest of axe's rules give the same answer in both and run in one.
 */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/**
 * axe's serious and critical violations on the page (`colours`: only the rules a colour scheme can change). Only
 * violations are collected: axe's passes and incomplete nodes are most of its work on a long page, and unused here.
 * axe runs in the page itself (legacy mode): the default opens a blank page per check to merge the frames' results,
 * which on these pages (no cross-origin frames) cost as much browser CPU as the rules and doubled a check's time.
 */
export async function expectAccessible(page: Page, opts: { colours?: boolean } = {}) {
  // axe-core (half a megabyte of script) goes into a document once: AxeBuilder evaluates it twice per check unless
  // given another source, and a page looked at in four views is checked three times without reloading.
  const loaded = (
    await Promise.all(page.frames().map((frame) => frame.evaluate(() => "axe" in window).catch(() => false)))
  ).every(Boolean);
  const axe = new AxeBuilder({ page, axeSource: loaded ? ";" : undefined })
    .setLegacyMode()
    .options({ resultTypes: ["violations"] });
  // axe measures the page at rest. A toast fading in or out, or colours half-way through a scheme switch (no settled
  // screenshot before it in CI), would be measured blended with what is behind them: finite animations and transitions
  // jump to their end, and with reduced motion the toasts start none while axe runs.
  await page.emulateMedia({ reducedMotion: "reduce" });
  const { violations } = await page
    .evaluate(() => {
      for (const a of document.getAnimations()) if (a.effect?.getComputedTiming().endTime !== Infinity) a.finish();
    })
    .then(() => (opts.colours ? axe.withRules(COLOUR_RULES) : axe).analyze())
    .finally(() => page.emulateMedia({ reducedMotion: null }));
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (!serious.length) return;
  // Which view, and axe's reasons (for contrast, the colours it measured): a failure in CI has only its log.
  const scheme = await page.evaluate(() => (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
  expect(
    serious.map(
      (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary}`).join("; ")})`,
    ),
    `serious violations at ${page.viewportSize()?.width ?? "?"} px, ${scheme}`,
  ).toEqual([]);
}

/**
 * The page's own scripts ran: the Next.js runtime is up and React hydrated. A click before that lands on server-rendered
 * HTML with no handler yet and is lost, which a busy machine makes likely right after a navigation.
 */
export async function hydrated(page: Page) {
  await page.waitForFunction(
    () => typeof (window as unknown as { next?: { version?: string } }).next?.version === "string",
  );
}

/**
 * A full-page screenshot, to be looked at. `settled` finishes CSS transitions first (a colour scheme just switched would
 * show them half-way); not with a menu open, whose animations Radix follows. E2E_SCREENSHOTS=0 skips them (CI, where
 * nobody looks: they asserted nothing and took a tenth of the tier's browser CPU).
 */
export async function screenshot(page: Page, name: string, opts: { settled?: boolean } = {}) {
  if (process.env.E2E_SCREENSHOTS === "0") return;
  await page.screenshot({
    path: `e2e/screenshots/${name}.png`,
    fullPage: true,
    animations: opts.settled ? "disabled" : "allow",
  });
}

export const VIEWPORTS = [
  { name: "desktop", width: 1366, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;
const SCHEMES = ["light", "dark"] as const;

/**
 * Looks at the page as loaded in all four views (resizing and switching the scheme need no reload): a screenshot of
 * each (`design/<name>-<desktop|phone>-<light|dark>.png`), no sideways scrolling on the phone, and axe in both schemes
 * (on the desktop, where every part of the page is shown: all rules in light, the colour rules in dark) and once on the
 * phone (its own header menu). Then back to the first view.
 */
export async function checkViews(page: Page, name: string) {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    for (const colorScheme of SCHEMES) {
      await page.emulateMedia({ colorScheme });
      // The colours a scheme switch starts to change, at their end (axe would measure their contrast half-way). Frame by
      // frame until one starts none: a page's own listener for the scheme (the API docs' dark-mode class) runs at a
      // rendering update after the switch, not always the first, and styles under a container query change only with
      // layout (forced here), so their transitions start late.
      await page.evaluate(async () => {
        for (let frame = 0; frame < 10; frame++) {
          await new Promise(requestAnimationFrame);
          void document.body.offsetHeight;
          const running = document
            .getAnimations()
            .filter((a) => a instanceof CSSTransition && a.playState === "running");
          if (frame > 0 && !running.length) return;
          running.forEach((a) => a.finish());
        }
      });
      await screenshot(page, `design/${name}-${viewport.name}-${colorScheme}`, { settled: true });
      if (viewport.name === "phone") {
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${name} scrolls sideways at 390 px (${colorScheme})`).toBeLessThanOrEqual(0);
      }
      if (viewport.name === "desktop" || colorScheme === "light")
        await expectAccessible(page, { colours: viewport.name === "desktop" && colorScheme === "dark" });
    }
  }
  await page.setViewportSize(VIEWPORTS[0]);
  await page.emulateMedia({ colorScheme: SCHEMES[0] });
}

/** Specs against the Clerk-mode server; `userId` is a new signed-in user per test. */
export const clerkTest = base.extend<{ userId: string }>({
  baseURL: async ({}, use) => use(env("E2E_CLERK_URL")),
  userId: [
    async ({ context, baseURL }, use) => {
      await offline(context);
      const id = newClerkUserId("developer");
      await signIn(context, baseURL!, id);
      await use(id);
    },
    { auto: true },
  ],
});

/** Specs against the SERVICE_NOAUTH=1 server (no Clerk keys). */
export const noauthTest = base.extend({
  baseURL: async ({}, use) => use(env("E2E_NOAUTH_URL")),
});

export { expect };
export const receiverUrl = () => env("E2E_RECEIVER_URL");

/** The emails the servers sent so far (through the Resend stub), newest last. */
export async function sentEmails(): Promise<{ to: string[] | string; subject: string; html: string; text?: string }[]> {
  return (await fetch(`${env("E2E_RESEND_URL")}/sent`)).json();
}

/** The NOAUTH test user's username, set once ("tester") by whichever spec gets there first. */
export async function testUsername(request: APIRequestContext): Promise<string> {
  const me = await (await request.get("/auth/me")).json();
  if (me.username) return me.username;
  await request.patch("/api/v1/users/me/username", { data: { username: "tester" } });
  return (await (await request.get("/auth/me")).json()).username;
}

/** Waits until the watch has exactly `n` successful runs. */
export async function checksDone(request: APIRequestContext, id: string, n = 1) {
  await expect(async () => {
    const runs = await (await request.get(`/api/v1/tasks/${id}/executions`)).json();
    expect(runs.filter((r: { status: string }) => r.status === "success").length).toBe(n);
  }).toPass({ timeout: 30_000 });
}

/** Publishes a watch of the NOAUTH test user (publishing needs a username). */
export async function publish(request: APIRequestContext, id: string) {
  await testUsername(request);
  expect((await request.patch(`/api/v1/tasks/${id}/visibility`, { data: { is_public: true } })).ok()).toBe(true);
}
