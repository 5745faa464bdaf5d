/**
 * The dashboard as an inbox of answers, in a real browser, with realistic watches: 55 of them in attention order
 * (failing and undelivered first, then what the owner has not seen, then other findings, then the rest), searched and
 * filtered; each verdict state on its watch page, said in words with its own actions; a public page on a phone with
 * Follow right under its verdict; the notifications page and the notice email. Every view is screenshotted at 1366 and
 * 390 px, light and dark (e2e/screenshots/design/).
 */
import type { APIRequestContext, Page } from "@playwright/test";
import {
  checkViews,
  clerkTest as test,
  expect,
  receiverUrl,
  screenshot,
  sentEmails,
  sessionToken,
  VIEWPORTS,
  hydrated,
} from "./fixtures";

// Three checks in a row for a failing watch, a slow first check, 55 watches and four views of each page (with axe):
// minutes on a busy machine.
test.describe.configure({ timeout: 600_000 });

type Task = { id: string; name: string };

/** The signed-in user's REST API (a bearer token of the same session the browser has). */
async function owner(request: APIRequestContext, userId: string) {
  const headers = { authorization: `Bearer ${await sessionToken(userId)}` };
  await request.post("/auth/sync-user", { headers });
  const me = (await (await request.get("/auth/me", { headers })).json()) as { email: string };
  const create = async (data: Record<string, unknown>): Promise<Task> => {
    const res = await request.post("/api/v1/tasks", { headers, data: { name: data.search_query, ...data } });
    expect(res.ok(), await res.text()).toBe(true);
    return res.json();
  };
  /** Waits until the watch has `n` finished checks (succeeded or failed). */
  const settled = async (id: string, n: number) =>
    expect(async () => {
      const runs = await (await request.get(`/api/v1/tasks/${id}/executions`, { headers })).json();
      expect(runs.filter((r: { status: string }) => r.status === "success" || r.status === "failed")).toHaveLength(n);
    }).toPass({ timeout: 60_000 });
  /** A watch whose checks fail three times in a row (the provider's 503): it can't check. */
  const failing = async (name: string) => {
    const t = await create({ name, search_query: `${name} failing`, run_immediately: true });
    for (let n = 1; n <= 3; n++) {
      await settled(t.id, n);
      if (n < 3) expect((await request.post(`/api/v1/tasks/${t.id}/execute`, { headers })).ok()).toBe(true);
    }
    return t;
  };
  /** A met watch that emails its owner (delivered) and posts to a webhook that answers 500 (retried). */
  const metWithChannels = () =>
    create({
      search_query: "PostgreSQL 19 beta",
      run_immediately: true,
      notifications: [
        { type: "email", address: me.email },
        { type: "webhook", url: `${receiverUrl()}/down` },
      ],
    });
  const get = async (id: string) => (await request.get(`/api/v1/tasks/${id}`, { headers })).json();
  const post = (path: string, data?: unknown) => request.post(path, { headers, data });
  return { me, headers, create, settled, failing, metWithChannels, get, post };
}

const rowsOf = (page: Page) => page.locator("table.watches tbody tr");
const namesOf = async (page: Page) =>
  (await rowsOf(page).locator("td.primary-cell a").allTextContents()).map((n) => n.replace(/^New: /, ""));

test("the inbox: 55 watches in attention order, searched, filtered, unseen in bold, a failed delivery marked", async ({
  page,
  request,
  userId,
}) => {
  const api = await owner(request, userId);
  await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      api.create({ search_query: `Quiet ${String(i + 1).padStart(2, "0")}`, state: "paused" }),
    ),
  );
  const seen = await api.create({ search_query: "Debian 14 freeze", run_immediately: true });
  const held = await api.create({ search_query: "iPhone 18 release date", min_sources: 2, run_immediately: true });
  const unseen = await api.create({ search_query: "PostgreSQL 19 beta", run_immediately: true });
  const refused = await api.create({
    search_query: "Node 26 LTS",
    run_immediately: true,
    notifications: [{ type: "webhook", url: `${receiverUrl()}/gone` }],
  });
  const failing = await api.failing("PyCon US 2027 tickets");
  for (const t of [seen, held, unseen, refused]) await api.settled(t.id, 1);
  await expect(async () => expect((await api.get(refused.id)).delivery_failed).toBe(true)).toPass({ timeout: 30_000 });
  expect((await api.post(`/api/v1/tasks/${seen.id}/seen`)).ok()).toBe(true);

  await page.goto("/dashboard");
  const rows = rowsOf(page);
  await expect(rows).toHaveCount(50);
  await expect(page.getByRole("navigation", { name: "Pages" })).toContainText("Page 1 of 2 · 55 watches");
  // Needs attention first: the failing watch and the undelivered notice, then what was not seen yet, then the rest.
  const names = await namesOf(page);
  expect(names.slice(0, 2).sort()).toEqual([refused.name, failing.name].sort());
  expect(names.slice(2, 4).sort()).toEqual([held.name, unseen.name].sort());
  expect(names[4]).toBe(seen.name);
  expect(names.slice(5).every((n) => n.startsWith("Quiet"))).toBe(true);

  const row = (t: Task) => rows.filter({ has: page.getByRole("link", { name: t.name }) });
  await expect(row(unseen)).toHaveAttribute("data-unseen", "true");
  await expect(row(seen)).not.toHaveAttribute("data-unseen");
  const weight = (t: Task) =>
    row(t)
      .locator("td.primary-cell a")
      .evaluate((a) => getComputedStyle(a).fontWeight);
  expect(Number(await weight(unseen))).toBeGreaterThan(Number(await weight(seen)));
  await expect(row(unseen).getByTestId("latest-answer")).toHaveText("PostgreSQL 19 Beta 1 was released today.");
  await expect(row(unseen)).toContainText(/as of (just now|\d+ minutes? ago)/);
  await expect(row(refused).getByTestId("delivery-failed")).toHaveText("delivery failed");
  await expect(row(held).getByTestId("verdict-state")).toHaveText("Found, not sent");
  await expect(row(failing).getByTestId("verdict-state")).toHaveText("Can't check");
  // 45 of the 50 paused ones fit on this page, in an order of their own (none has a next check): any of them.
  await expect(
    rows
      .filter({ hasText: /Quiet \d\d/ })
      .first()
      .getByTestId("verdict-state"),
  ).toHaveText("Paused");
  await checkViews(page, "inbox");

  // Words in the name, query or condition; the state chips; the sort menu (it applies at once).
  await page.getByRole("searchbox", { name: "Search your watches" }).fill("node lts");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/[?&]q=node\+lts/);
  expect(await namesOf(page)).toEqual([refused.name]);
  await page.getByRole("searchbox", { name: "Search your watches" }).fill("");
  await page.getByRole("button", { name: "Search" }).click();
  const chips = page.getByRole("navigation", { name: "Filter by state" });
  await chips.getByRole("link", { name: "Failing" }).click();
  await expect(chips.getByRole("link", { name: "Failing" })).toHaveAttribute("aria-current", "page");
  expect((await namesOf(page)).sort()).toEqual([refused.name, failing.name].sort());
  await checkViews(page, "inbox-failing");
  await chips.getByRole("link", { name: "Held" }).click();
  await expect(rows).toHaveCount(1);
  expect(await namesOf(page)).toEqual([held.name]);
  await chips.getByRole("link", { name: "Met" }).click();
  await expect(rows).toHaveCount(3);
  await chips.getByRole("link", { name: "Paused" }).click();
  await expect(rows).toHaveCount(50);
  await chips.getByRole("link", { name: "All" }).click();
  await expect(chips.getByRole("link", { name: "All" })).toHaveAttribute("aria-current", "page");
  await page.getByLabel("Sort").selectOption("name");
  await expect(page).toHaveURL(/[?&]sort=name/);
  await expect(rows.first()).toContainText(seen.name);
  await page.getByRole("searchbox", { name: "Search your watches" }).fill("no such words");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByText("No watches match “no such words”.")).toBeVisible();

  // Opening the unseen watch marks it seen: back in the list it is no longer bold.
  await page.goto(`/dashboard/w/${unseen.id}`);
  await page.goto("/dashboard");
  await expect(row(unseen)).not.toHaveAttribute("data-unseen");
});

test("each verdict state on its watch page, with its own actions, and the delivery line", async ({
  page,
  request,
  userId,
}) => {
  const api = await owner(request, userId);
  const met = await api.metWithChannels();
  const held = await api.create({ search_query: "iPhone 18 release date", min_sources: 2, run_immediately: true });
  const paused = await api.create({ search_query: `withdrawn Debian 14 freeze ${Date.now()}`, run_immediately: true });
  const notYet = await api.create({ search_query: `withdrawn Rust 2027 ${Date.now()}`, run_immediately: true });
  const failing = await api.failing("PyCon US 2027 tickets");
  for (const t of [met, held, paused, notYet]) await api.settled(t.id, 1);
  // Found, then withdrawn at the next check: nothing stands (a standing finding would say Met, paused or not).
  for (const t of [paused, notYet]) {
    expect((await api.post(`/api/v1/tasks/${t.id}/execute`)).ok()).toBe(true);
    await api.settled(t.id, 2);
  }
  await request.put(`/api/v1/tasks/${paused.id}`, { headers: api.headers, data: { state: "paused" } });

  const verdict = page.locator("section.verdict");
  const state = verdict.getByTestId("verdict-state");

  // Met: the answer, where it went (email delivered, the webhook retrying), and the question "done?".
  await page.goto(`/dashboard/w/${met.id}`);
  await expect(state).toHaveText("Met");
  await expect(verdict.getByRole("heading", { level: 2 })).toHaveText("Yes, per these sources");
  const line = page.getByTestId("verdict-delivery");
  await expect(async () => {
    await page.reload();
    await expect(line).toContainText(/^Sent to Email ✓ · Webhook retrying, next try .+ \(HTTP 500\)/, {
      timeout: 1000,
    });
  }).toPass({ timeout: 30_000 });
  const prompt = page.getByTestId("answered-prompt");
  await expect(prompt).toContainText("Answered — stop watching, or keep watching for changes?");
  await checkViews(page, "verdict-met");
  await prompt.getByRole("button", { name: "Keep watching" }).click();
  await expect(prompt).toHaveCount(0);
  await page.reload();
  await expect(state).toHaveText("Met");
  await expect(prompt).toHaveCount(0); // remembered, by the account
  expect((await api.get(met.id)).answered).toBe(true);

  // Held: found, not sent, with the gate's reason and the way to change the bounds.
  await page.goto(`/dashboard/w/${held.id}`);
  await expect(state).toHaveText("Found, not sent");
  await expect(page.getByTestId("verdict-held")).toContainText("1 independent source, 2 required");
  await expect(verdict.getByRole("link", { name: "Change bounds" })).toBeVisible();
  await expect(verdict).not.toContainText("Not yet");
  await checkViews(page, "verdict-held");
  // Send it anyway: a confirm says who will be told; then the finding is the watch's answer.
  await verdict.getByRole("button", { name: "Send it anyway" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Send this finding anyway?" });
  await expect(dialog).toContainText("did not clear this watch's bounds");
  await expect(dialog).toContainText("to nobody yet (the watch has no channels)"); // created without any
  await checkViews(page, "send-anyway-confirm");
  await dialog.getByRole("button", { name: "Send it now" }).click();
  await expect(page.getByText("Sent: the finding is on its way")).toBeVisible();
  await expect(state).toHaveText("Met");
  await expect(page.getByTestId("answered-prompt")).toBeVisible();

  // Paused: the last answer as of its date; Resume is the first action.
  await page.goto(`/dashboard/w/${paused.id}`);
  await expect(state).toHaveText("Paused");
  await expect(verdict).toContainText("The announcement was withdrawn.");
  await expect(verdict).not.toContainText("Watching");
  const actions = page.getByRole("group", { name: "Watch actions" });
  await expect(actions.getByRole("button").first()).toHaveText("Resume");
  await expect(actions.getByRole("button", { name: "Resume" })).not.toHaveClass(/secondary/);
  await checkViews(page, "verdict-paused");

  // Can't check: since when, whose the failure is, said once, with Retry now and Pause.
  await page.goto(`/dashboard/w/${failing.id}`);
  await expect(state).toHaveText("Can't check");
  await expect(page.getByTestId("verdict-failure")).toContainText("Watch retries at");
  await expect(verdict.getByRole("button", { name: "Retry now" })).toBeVisible();
  await expect(verdict.getByRole("button", { name: "Pause" })).toBeVisible();
  expect(await page.getByText("The AI model provider is failing.").count()).toBe(1);
  await checkViews(page, "verdict-cant-check");

  // Not yet: the latest answer as of its check, the withdrawn finding marked.
  await page.goto(`/dashboard/w/${notYet.id}`);
  await expect(state).toHaveText("Not yet");
  await expect(verdict.getByRole("heading", { level: 2 })).toHaveText("No, not yet");
  await expect(page.getByTestId("latest-answer")).toContainText("The announcement was withdrawn.");
  await checkViews(page, "verdict-not-yet");

  // Resolved: one click on "Stop watching" completes a met watch; Reactivate comes first, Run now is in the menu.
  const done = await api.create({ search_query: "Python 3.15.0 released", run_immediately: true });
  await api.settled(done.id, 1);
  await page.goto(`/dashboard/w/${done.id}`);
  await hydrated(page);
  await page.getByTestId("answered-prompt").getByRole("button", { name: "Stop watching" }).click();
  await expect(state).toHaveText("Resolved");
  await expect(actions.getByRole("button").first()).toHaveText("Reactivate");
  await page.getByRole("button", { name: "More actions" }).click();
  await expect(page.getByRole("menuitem", { name: "Run now" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0, { timeout: 15_000 }); // "Watch completed" fades
  await checkViews(page, "verdict-resolved");

  // A first check under way says so, and that nothing was sent yet.
  const slow = await api.create({ search_query: `First check slow ${Date.now()}`, run_immediately: true });
  await page.goto(`/dashboard/w/${slow.id}`);
  await expect(state).toHaveText("First check");
  await expect(verdict.getByRole("heading", { level: 2 })).toHaveText("First check running…");
  await expect(page.getByTestId("verdict-delivery")).toHaveText(/^Nothing sent yet: the first check is still running/);
  await screenshot(page, "design/verdict-first-check-desktop-light");
  await page.setViewportSize(VIEWPORTS[1]);
  await screenshot(page, "design/verdict-first-check-phone-light");
  await page.setViewportSize(VIEWPORTS[0]);
});

test("notifications say each delivery in words with its next try; the notice email leads with its verdict", async ({
  page,
  request,
  userId,
}) => {
  const api = await owner(request, userId);
  const met = await api.metWithChannels();
  await api.settled(met.id, 1);

  // Notifications: the webhook's failed attempt in words, with its next try.
  await expect(async () => {
    await page.goto(`/dashboard/notifications?task_id=${met.id}`);
    await expect(page.getByRole("row").filter({ hasText: "✗ Failed" })).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  const failed = page.getByRole("row").filter({ hasText: "✗ Failed" }).first();
  await expect(failed).toContainText("Condition met");
  await expect(failed).toContainText("HTTP 500");
  await expect(failed.getByTestId("next-attempt")).toContainText(/^Next try /);
  await expect(page.getByRole("row").filter({ hasText: "✓ Delivered" }).first()).toContainText("Email");
  await checkViews(page, "notifications-retry");

  // The notice email: the verdict strip, the sources by site, one full-width button.
  let html = "";
  await expect(async () => {
    const mail = (await sentEmails()).find(
      (m) => [m.to].flat().includes(api.me.email) && m.subject === "PostgreSQL 19 Beta 1 is out",
    );
    html = mail?.html ?? "";
    expect(html).not.toBe("");
  }).toPass({ timeout: 20_000 });
  await page.setContent(html);
  await expect(page.getByText(/^Condition met · found \d{1,2} \w{3} \d{4}$/)).toBeVisible();
  await expect(page.getByText("postgresql.org", { exact: true })).toBeVisible();
  const button = page.getByRole("link", { name: "Open the watch" });
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    const box = (await button.boundingBox())!;
    const card = (await page.locator(".email-card").boundingBox())!;
    expect(box.width).toBeGreaterThan(card.width - 2 * 24 - 2); // the card's width less its padding
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await screenshot(page, `design/email-${viewport.name}-${colorScheme}`);
    }
  }
});

test("a met public page on a phone: Follow right under the verdict, the answer once; Explore's cards say the answer", async ({
  page,
  browser,
  baseURL,
  request,
  userId,
}) => {
  const api = await owner(request, userId);
  await request.patch("/api/v1/users/me/username", {
    headers: api.headers,
    data: { username: `inbox${Date.now().toString(36)}` },
  });
  const task = await api.create({
    search_query: `Is Postgres 19 beta out ${Date.now().toString(36)}`,
    run_immediately: true,
  });
  await api.settled(task.id, 1);
  await request.patch(`/api/v1/tasks/${task.id}/visibility`, { headers: api.headers, data: { is_public: true } });

  const visitor = await browser.newContext({ baseURL, viewport: VIEWPORTS[1] });
  await visitor.route(/clerk\.accounts\.dev|clerk\.com|accounts\.dev/, (route) => route.abort());
  const phone = await visitor.newPage();
  await phone.goto(`/w/${task.id}`);
  const verdict = (await phone.locator("section.verdict").boundingBox())!;
  const follow = (await phone.getByRole("complementary", { name: "Hear when it changes" }).boundingBox())!;
  expect(follow.y).toBeGreaterThan(verdict.y + verdict.height - 1);
  expect(follow.y - (verdict.y + verdict.height)).toBeLessThan(40);
  await expect(phone.getByText("PostgreSQL 19 Beta 1 was released today.")).toHaveCount(1);
  await checkViews(phone, "public-met");
  await visitor.close();

  await page.goto(`/explore?q=${encodeURIComponent(task.name)}`);
  const card = page.locator("article.watch-card").filter({ hasText: task.name });
  await expect(card.getByTestId("verdict-state")).toHaveText("Met");
  await expect(card.getByTestId("latest-answer")).toHaveText("PostgreSQL 19 Beta 1 was released today.");
  await page.goto("/explore");
  await checkViews(page, "explore-cards");
});
