/**
 * The design system, page by page, with realistic watches: at 1366×900 and 390×844, in light and in dark, no page
 * scrolls sideways on a phone and axe finds nothing serious (colour contrast included); every view is screenshotted
 * (e2e/screenshots/design/) to be looked at. Plus what the shell promises: one navigation with the current page
 * marked, a new watch that notifies its owner by default, a running check that shows itself.
 */
import type { APIRequestContext, Page } from "@playwright/test";
import {
  checksDone,
  checkViews,
  expect,
  expectAccessible,
  noauthTest as test,
  publish,
  receiverUrl,
  screenshot,
  sentEmails,
  testUsername,
  VIEWPORTS,
} from "./fixtures";

// A tour runs axe three times per page (Swagger UI's page alone takes a while): more than the default minute.
test.describe.configure({ mode: "parallel", timeout: 240_000 });

const nav = (page: Page) => page.getByRole("navigation", { name: "Main" });

const unique = (what: string) => `${what} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;

/** A public watch with a finding and a webhook (so there is a delivery in the history). */
async function publicWatchWithFinding(request: APIRequestContext) {
  const name = unique("PostgreSQL 19 beta");
  const task = await (
    await request.post("/api/v1/tasks", {
      data: {
        name,
        search_query: "PostgreSQL 19 beta release",
        condition_description: "a PostgreSQL 19 beta release is announced",
        run_immediately: true,
        notifications: [{ type: "webhook", url: `${receiverUrl()}/design` }],
      },
    })
  ).json();
  await checksDone(request, task.id);
  await publish(request, task.id);
  return task as { id: string; name: string };
}

test("public pages: home, explore, a watch, a profile", async ({ page, request }) => {
  const task = await publicWatchWithFinding(request);
  const username = await testUsername(request);

  await page.goto("/");
  await expect(page.getByRole("complementary", { name: "A public watch, live" })).toBeVisible();
  await checkViews(page, "home");

  await page.goto("/explore");
  await expect(nav(page).getByRole("link", { name: "Explore" })).toHaveAttribute("aria-current", "page");
  await checkViews(page, "explore");

  await page.goto(`/w/${task.id}`);
  await expect(page.getByRole("region", { name: "Met Yes, per these sources" })).toBeVisible();
  await expect(page.getByTestId("finding")).toHaveCount(1);
  await checkViews(page, "public-watch");

  // Not met (any more): the latest answer as of its check, and the finding it withdrew, marked.
  const quiet = await (
    await request.post("/api/v1/tasks", {
      data: { name: unique("Not yet"), search_query: unique("withdrawn PostgreSQL 20 beta"), run_immediately: true },
    })
  ).json();
  await checksDone(request, quiet.id);
  expect((await request.post(`/api/v1/tasks/${quiet.id}/execute`)).ok()).toBe(true);
  await checksDone(request, quiet.id, 2);
  await publish(request, quiet.id);
  await page.goto(`/w/${quiet.id}`);
  await expect(page.getByTestId("latest-answer")).toContainText("The announcement was withdrawn.");
  await expect(page.getByTestId("finding").getByTestId("retracted")).toBeVisible();
  await checkViews(page, "public-watch-not-met");

  await page.goto(`/u/${username}`);
  await checkViews(page, "user-page");
});

test("the follow confirmation and the 404 page", async ({ page, request }) => {
  const task = await publicWatchWithFinding(request);
  const reader = `${unique("reader").replace(/\s/g, "-")}@example.com`;
  await request.post(`/api/v1/public/tasks/id/${task.id}/follow`, { data: { email: reader } });
  let confirm = "";
  await expect(async () => {
    const email = (await sentEmails()).find((e) => [e.to].flat().includes(reader));
    confirm = /\/follow\/confirm\?token=[^"'\s<&]+/.exec(email?.html ?? "")?.[0] ?? "";
    expect(confirm).not.toBe("");
  }).toPass({ timeout: 15_000 });

  // The confirmation link's page names the watch and the address before anything is done.
  await page.goto(confirm);
  await expect(page.getByRole("link", { name: task.name })).toBeVisible();
  await expect(page.getByText(reader)).toBeVisible();
  await checkViews(page, "follow-confirm");

  const missing = await page.goto("/no-such-page");
  expect(missing!.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "There is nothing here" })).toBeVisible();
  await checkViews(page, "not-found");
});

test("the API docs (Swagger UI) in the shell and its theme", async ({ page }) => {
  await page.goto("/docs");
  await expect(page.getByText("/api/v1/tasks/{id}/execute").first()).toBeVisible({ timeout: 45_000 });
  await expect(nav(page).getByRole("link", { name: "API docs" })).toHaveAttribute("aria-current", "page");
  await checkViews(page, "docs");
});

test("dashboard pages: the list, a watch, its edit form", async ({ page, request }) => {
  const task = await publicWatchWithFinding(request);
  const held = await (
    await request.post("/api/v1/tasks", {
      data: {
        name: unique("Held until two sites agree"),
        search_query: "iPhone 18 release date",
        min_sources: 2,
        run_immediately: true,
      },
    })
  ).json();
  await request.post("/api/v1/tasks", {
    data: { name: unique("Paused, never checked"), search_query: "PyCon US 2027 tickets", state: "paused" },
  });
  await checksDone(request, held.id);

  await page.goto("/dashboard");
  await expect(nav(page).getByRole("link", { name: "Watches" })).toHaveAttribute("aria-current", "page");
  // A finding the bounds held back is not "met" in the list: nobody was told yet.
  await expect(
    page.getByRole("row").filter({ hasText: "Held until two sites agree" }).first().getByTestId("verdict-state"),
  ).toHaveText("Found, not sent");
  await checkViews(page, "dashboard");

  await page.goto(`/dashboard/w/${task.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(task.name);
  await expect(page.getByText("90% sure").first()).toBeVisible();
  // The answer first: the verdict is in the first screen, on a phone too, with where it went.
  const verdict = page.getByRole("region", { name: "Met Yes, per these sources" });
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    await expect(verdict).toBeInViewport();
  }
  await page.setViewportSize(VIEWPORTS[0]);
  // What the webhook did with the notice, once it answered.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("verdict-delivery")).toHaveText(/^Sent to Webhook ✓/, { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("finding")).toHaveCount(1);
  await expect(page.getByTestId("finding-dates")).toHaveText(/^First found /);
  await checkViews(page, "watch");

  // A finding held back says so in the verdict's place, and in its finding.
  await page.goto(`/dashboard/w/${held.id}`);
  await expect(page.getByTestId("verdict-held")).toBeInViewport();
  await expect(page.getByTestId("finding").getByTestId("held")).toHaveText(/held: 1 independent source, 2 required/);
  await checkViews(page, "watch-held");

  // The menus and the dialog, open, from the keyboard.
  await page.getByRole("button", { name: "More actions" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("menuitem", { name: "Complete" })).toBeFocused();
  await screenshot(page, "design/watch-more-actions");
  // Radix moves focus on End in a timer, and the browser may take the next key first: Enter waits for the move.
  await page.keyboard.press("End");
  await expect(page.getByRole("menuitem", { name: "Delete…" })).toBeFocused();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: "Delete this watch?" });
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await screenshot(page, "design/watch-delete-dialog");
  await expectAccessible(page);
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await page.setViewportSize(VIEWPORTS[1]);
  await page.getByRole("button", { name: "Menu" }).click();
  await expect(page.getByRole("menuitem", { name: "Watches" })).toHaveAttribute("aria-current", "page");
  await screenshot(page, "design/phone-menu");
  await page.keyboard.press("Escape");
  await page.setViewportSize(VIEWPORTS[0]);

  await page.goto(`/dashboard/w/${task.id}/edit`);
  await checkViews(page, "watch-edit");
});

test("dashboard pages: following, notifications, settings, the waitlist", async ({ page, request }) => {
  await publicWatchWithFinding(request); // a delivery in the history
  for (const [path, name] of [
    ["/dashboard/following", "following"],
    ["/dashboard/notifications", "notifications"],
    ["/dashboard/settings", "settings"],
    ["/dashboard/admin", "waitlist"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await checkViews(page, name);
  }
});

test("a new watch emails its owner by default; with no channel on, the form says nobody will hear", async ({
  page,
  request,
}) => {
  const me = await (await request.get("/auth/me")).json();
  await page.goto("/dashboard/new");
  await expect(nav(page).getByRole("link", { name: "Watches" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("checkbox", { name: "Email" })).toBeChecked();
  await expect(page.getByRole("textbox", { name: "Email address" })).toHaveValue(me.email);
  await expect(page.getByTestId("no-channel")).toHaveCount(0);
  await checkViews(page, "watch-new");

  await page.getByRole("checkbox", { name: "Email" }).uncheck();
  await expect(page.getByTestId("no-channel")).toHaveText(
    "Nobody will be notified: with no channel on, findings only appear on the watch's page and in the API.",
  );
  await page.getByRole("checkbox", { name: "Email" }).check();
  const name = unique("Default channel");
  await page.getByLabel("What should the agent look for?").fill(name);
  await page.getByLabel("Start paused").check();
  await page.getByRole("button", { name: "Create watch" }).click();
  await expect(page).toHaveURL(/\/dashboard\/w\//);
  const id = page.url().split("/").pop()!;
  const created = await (await request.get(`/api/v1/tasks/${id}`)).json();
  expect(created.notifications).toEqual([{ type: "email", address: me.email }]);
  await page.getByText("Settings and bounds").click();
  await expect(page.locator("ul.channels li").filter({ hasText: `Email ${me.email}` })).toBeVisible();
});

test("while a check runs, Run now counts up, its steps show as they happen, and the list refreshes by itself", async ({
  page,
  request,
}) => {
  const name = unique("Running now");
  const task = await (
    await request.post("/api/v1/tasks", { data: { name, search_query: name, state: "paused" } })
  ).json();
  await page.goto("/dashboard");
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("not checked yet");
  expect((await request.post(`/api/v1/tasks/${task.id}/execute`)).ok()).toBe(true);
  // The list refreshes itself while a check it shows is open: loaded once more to see this one, then never again.
  await page.reload();
  await expect(row).toContainText("checking now");
  await expect(row).toContainText(/as of (just now|\d+ minutes? ago)/, { timeout: 30_000 });

  // A slow check this time: its steps show while the model still thinks.
  await request.put(`/api/v1/tasks/${task.id}`, { data: { search_query: `${name} slow` } });
  expect((await request.post(`/api/v1/tasks/${task.id}/execute`)).ok()).toBe(true);
  await page.goto(`/dashboard/w/${task.id}`);
  const running = page.getByRole("button", { name: /^Running… \d+:\d\d$/ });
  await expect(running).toBeDisabled();
  const steps = page.getByTestId("live-steps");
  await expect(steps).toContainText(`Searched ${name} slow`);
  await screenshot(page, "design/watch-running");
  await page.setViewportSize(VIEWPORTS[1]);
  await screenshot(page, "design/watch-running-phone");
  await page.setViewportSize(VIEWPORTS[0]);
  await expect(page.getByRole("button", { name: "Run now" })).toBeEnabled({ timeout: 30_000 });
});

test("the channel editor: a choice field is a menu (Gotify's priority), a Matrix room by its Apprise URL", async ({
  page,
  request,
}) => {
  const name = unique("New channels");
  const task = await (
    await request.post("/api/v1/tasks", { data: { name, search_query: "Matrix 2.0 spec", state: "paused" } })
  ).json();
  await page.goto(`/dashboard/w/${task.id}/edit`);
  const editor = page.getByTestId("channel-editor");
  const list = editor.getByRole("list", { name: "Chat and push channels" });
  const add = editor.getByRole("button", { name: "Add channel" });
  await editor.getByText("Add a chat or push channel").click();

  await editor.getByLabel("Channel", { exact: true }).selectOption("gotify");
  await editor.getByLabel("Server URL").fill("https://push.example.com/");
  await editor.getByLabel("Application token").fill("AbCdEfGhIjKlMnO");
  await editor.getByLabel("Priority").selectOption("high");
  await checkViews(page, "watch-edit-gotify");
  await add.click();
  await expect(list.getByRole("listitem")).toHaveText([/^Gotify https:\/\/push\.example\.com\//]);

  const apprise = editor.getByLabel("Or paste an Apprise URL");
  await apprise.fill("https://webhooks.t2bot.io/api/v1/matrix/hook/secretHookId");
  await add.click();
  await expect(editor.getByRole("alert")).toContainText("Matrix webhook bridges (t2bot");
  await apprise.fill("matrixs://syt_secretAccessToken1@matrix.example.org/!RoomId:example.org");
  await add.click();
  await expect(list.getByRole("listitem")).toHaveText([/^Gotify/, /^Matrix !RoomId:example\.org on/]);

  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/w/${task.id}$`));
  const saved = (await (await request.get(`/api/v1/tasks/${task.id}`)).json()).notifications;
  expect(saved).toEqual(
    expect.arrayContaining([
      { type: "gotify", url: "https://push.example.com/", token: "…lMnO", priority: "high" },
      {
        type: "matrix",
        homeserver: "https://matrix.example.org",
        access_token: "…ken1",
        room: "!RoomId:example.org",
      },
    ]),
  );
});

test("the channel editor: a chat channel by its fields, another by an Apprise URL, secrets shown redacted", async ({
  page,
  request,
}) => {
  const name = unique("Channels");
  const task = await (
    await request.post("/api/v1/tasks", { data: { name, search_query: "Debian 14 freeze date", state: "paused" } })
  ).json();
  await page.goto(`/dashboard/w/${task.id}/edit`);
  const editor = page.getByTestId("channel-editor");
  const list = editor.getByRole("list", { name: "Chat and push channels" });
  const add = editor.getByRole("button", { name: "Add channel" });
  await editor.getByText("Add a chat or push channel").click();

  await editor.getByLabel("Channel", { exact: true }).selectOption("slack");
  await add.click();
  await expect(editor.getByRole("alert")).toHaveText("Incoming webhook URL is needed (or paste an Apprise URL).");
  await editor.getByLabel("Incoming webhook URL").fill("https://hooks.slack.com/services/T0001/B0001/slacksecretWXYZ");
  await add.click();
  await expect(list.getByRole("listitem")).toHaveText([/^Slack https:\/\/hooks\.slack\.com\/services\/T0001/]);

  const apprise = editor.getByLabel("Or paste an Apprise URL");
  await apprise.fill("tgram://123456789:AAHtoken");
  await add.click();
  await expect(editor.getByRole("alert")).toHaveText(
    "Telegram bot-owner detection (no chat in the URL) is not supported: add the chat id, tgram://BotToken/ChatID",
  );
  await apprise.fill("tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAsQRST/-1001234567890?format=markdown");
  await add.click();
  await expect(list.getByRole("listitem")).toHaveText([/^Slack/, /^Telegram chat -1001234567890/]);
  await expect(editor.getByRole("status")).toHaveText(
    "Telegram added. Watch sends its own layout, so this Apprise option does not apply: format.",
  );
  await checkViews(page, "watch-edit-channels");

  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/w/${task.id}$`));
  const saved = (await (await request.get(`/api/v1/tasks/${task.id}`)).json()).notifications;
  expect(saved).toEqual(
    expect.arrayContaining([
      { type: "slack", url: "https://hooks.slack.com/…WXYZ" },
      { type: "telegram", bot_token: "…QRST", chat_id: "-1001234567890" },
    ]),
  );

  // Saved: the secrets stay redacted in the form, a test send is offered, and removing one keeps the other's secret.
  await page.goto(`/dashboard/w/${task.id}/edit`);
  await expect(list.getByRole("listitem").first()).toHaveText(/^Slack https:\/\/hooks\.slack\.com\/…WXYZ/);
  await expect(list.getByRole("button", { name: /^Send test/ })).toHaveCount(2);
  await expect(page.locator("body")).not.toContainText("slacksecret");
  await list.getByRole("button", { name: "Remove the Telegram channel" }).click();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/w/${task.id}$`));
  const after = (await (await request.get(`/api/v1/tasks/${task.id}`)).json()).notifications;
  expect(after.filter((c: { type: string }) => c.type !== "email")).toEqual([
    { type: "slack", url: "https://hooks.slack.com/…WXYZ" },
  ]);
});
