import {
  clerkTest as test,
  expect,
  expectAccessible,
  newClerkUserId,
  receiverUrl,
  screenshot,
  sessionToken,
  signIn,
  hydrated,
} from "./fixtures";

test("a new user creates a watch from an example, sees the agent's answer, publishes it; another user forks it", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000); // two users' whole journey, a check included: more than a minute on a busy machine
  await page.goto("/dashboard");
  await expect(page.getByRole("heading", { name: /^Welcome/ })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Start your first watch" })).toBeVisible();
  await screenshot(page, "dashboard-empty");
  await expectAccessible(page);
  await page.getByRole("button", { name: "Got it" }).click();
  await expect(page.getByRole("heading", { name: /^Welcome/ })).toHaveCount(0);

  await page.getByRole("link", { name: /PostgreSQL 19 beta/ }).click();
  await expect(page.getByLabel("What should the agent look for?")).toHaveValue("PostgreSQL 19 beta");
  await expect(page.getByLabel("Tell me when…")).toHaveValue("a PostgreSQL 19 beta release is announced");
  await page.getByLabel("Webhook URL", { exact: true }).fill(`${receiverUrl()}/hooks/watch`);
  await screenshot(page, "watch-new");
  await expectAccessible(page);
  await page.getByRole("button", { name: "Create watch" }).click();

  await expect(page).toHaveURL(/\/dashboard\/w\/[0-9a-f-]{36}$/);
  const watchUrl = page.url();
  await expect(page.getByRole("status").filter({ hasText: "The agent is checking now" })).toBeVisible();
  await expect(page.getByText("PostgreSQL 19 Beta 1 was released today.").first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole("heading", { name: "PostgreSQL 19 Beta 1 is out" })).toBeVisible();
  await expect(page.getByRole("link", { name: "PostgreSQL 19 Beta 1 Released" }).first()).toBeVisible();
  await expect(page.getByRole("cell", { name: "success" }).first()).toBeVisible();
  await screenshot(page, "watch-page");
  await expectAccessible(page);

  await page.getByText("Settings and bounds").click(); // collapsed under the answer
  await page.getByRole("button", { name: "Send test Webhook" }).click();
  await expect(page.getByText("Test Webhook sent")).toBeVisible();

  await page.getByRole("button", { name: "Pause" }).click();
  await expect(page.getByText("Watch paused")).toBeVisible();
  await expect(page.getByRole("button", { name: "Resume" })).toBeVisible();

  // Someone else, signed in: the private watch does not exist for them.
  const other = await browser.newContext();
  await other.route(/accounts\.dev/, (r) => r.abort());
  await signIn(other, baseURL!, newClerkUserId());
  const visitor = await other.newPage();
  const ownerPath = new URL(watchUrl).pathname;
  expect((await visitor.goto(`${baseURL}${ownerPath}`))!.status()).toBe(404);
  expect(
    (await visitor.request.get(`${baseURL}/api/v1/public/tasks/id${ownerPath.slice("/dashboard/w".length)}`)).status(),
  ).toBe(404);

  await page.getByRole("button", { name: "More actions" }).click();
  await page.getByRole("menuitem", { name: "Make public" }).click();
  const username = `e2e${Date.now().toString(36)}`;
  await page.getByLabel(/Choose one/).fill(username);
  await page.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByText("Watch is public")).toBeVisible();
  const publicLink = page.getByTestId("public-link").getByRole("link", { name: "PostgreSQL 19 beta" });
  await expect(publicLink).toBeVisible();
  const publicPath = (await publicLink.getAttribute("href"))!;

  // Now public: the other user finds it on its public page (the dashboard link leads there too) and forks it.
  await visitor.goto(`${baseURL}${ownerPath}`);
  await expect(visitor).toHaveURL(`${baseURL}${publicPath}`);
  await expect(visitor.getByRole("heading", { level: 1 })).toHaveText("PostgreSQL 19 beta");
  await expect(visitor.getByText(`@${username}`)).toBeVisible();
  await expect(visitor.getByText(/webhook|hooks\/watch/i)).toHaveCount(0);
  await screenshot(visitor, "public-watch");
  await expectAccessible(visitor);
  await visitor.getByRole("button", { name: "Fork" }).click();
  await expect(visitor).toHaveURL(/\/dashboard\/w\//);
  await expect(visitor.getByRole("heading", { level: 1 })).toHaveText("PostgreSQL 19 beta (Copy)");
  await expect(visitor.getByText("paused").first()).toBeVisible();
  await other.close();

  // The owner deletes the original, confirming first.
  await page.goto(watchUrl);
  await page.getByRole("button", { name: "More actions" }).click();
  await page.getByRole("menuitem", { name: "Delete…" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete permanently" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  // Gone from the list (the empty state offers an example of the same name, not a link to the watch).
  await expect(page.locator(`a[href$="${new URL(watchUrl, page.url()).pathname}"]`)).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Start your first watch" })).toBeVisible();
  expect((await page.goto(watchUrl))!.status()).toBe(404);
});

test("create form: inline errors from the API, edit, run now; a page that missed the open check explains the conflict", async ({
  page,
  context,
}) => {
  await page.goto("/dashboard/new");
  await page.getByRole("button", { name: "Create watch" }).click();
  await expect(page.getByText("Tell the agent what to search for.")).toBeVisible();
  await page.getByLabel("What should the agent look for?").fill("Rust 2027 edition");
  await page.getByLabel("Webhook URL", { exact: true }).fill("ftp://example.com/hook");
  await page.getByRole("button", { name: "Create watch" }).click();
  await expect(
    page
      .getByRole("alert")
      .filter({ hasText: /Invalid notification/ })
      .first(),
  ).toBeVisible();
  await expect(page.getByLabel("Webhook URL", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await page.getByLabel("Webhook URL", { exact: true }).fill("");
  await page.getByLabel("Start paused").check();
  await page.getByRole("button", { name: "Create watch" }).click();
  await expect(page).toHaveURL(/\/dashboard\/w\//);
  await expect(page.getByText("paused").first()).toBeVisible();

  await page.getByRole("link", { name: "Edit" }).click();
  await page.getByLabel("Name").fill("Rust edition watch");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Rust edition watch");

  const stale = await context.newPage(); // opened before the check starts: it does not know of it
  await stale.goto(page.url());
  await hydrated(stale);
  await page.getByRole("button", { name: "Run now" }).click();
  await expect(page.getByText("Check started")).toBeVisible();
  await expect(page.getByRole("button", { name: /^Running…/ })).toBeDisabled();
  await stale.getByRole("button", { name: "Run now" }).click();
  await expect(stale.getByText("A check is already pending or running.")).toBeVisible();
  await stale.close();
  await expect(page.getByText("not met").or(page.getByText("met")).first()).toBeVisible();

  await page.goto("/dashboard?state=paused");
  await expect(page.getByRole("link", { name: "Rust edition watch" })).toBeVisible();
  await page.goto("/dashboard?state=completed");
  await expect(page.getByText("No completed watches.")).toBeVisible();
  await screenshot(page, "dashboard-filtered");
});

test("API key: created once in settings, works with the REST API, revoked key is refused", async ({
  page,
  request,
}) => {
  await page.goto("/dashboard/settings");
  await expectAccessible(page);
  await page.getByLabel("Key name").fill("laptop");
  await page.getByRole("button", { name: "Create API key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent())!;
  expect(key.length).toBeGreaterThan(20);
  await expect(page.getByRole("cell", { name: "laptop" })).toBeVisible();
  await screenshot(page, "settings");

  const ok = await request.get("/api/v1/tasks", { headers: { authorization: `Bearer ${key}` } });
  expect(ok.status()).toBe(200);

  await page.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByText("Key revoked")).toBeVisible();
  await expect(page.getByRole("button", { name: "Create API key" })).toBeVisible();
  const refused = await request.get("/api/v1/tasks", { headers: { authorization: `Bearer ${key}` } });
  expect(refused.status()).toBe(401);
  expect(await refused.json()).toEqual({ detail: "Invalid API key" });

  // Usernames: availability is checked as you type, then set once.
  const name = `key${Date.now().toString(36)}`;
  await page.getByRole("textbox", { name: "Username" }).fill(name);
  await expect(page.getByText(`@${name} is available`)).toBeVisible();
  await page.getByRole("button", { name: "Save username" }).click();
  await expect(page.getByText(`@${name}`).first()).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Username" })).toHaveCount(0);
});

test("notifications: the history in words filters by channel and watch; the signing secret is revealed and rotated in Settings", async ({
  page,
}) => {
  await page.goto("/dashboard/new");
  await page.getByLabel("What should the agent look for?").fill("Node 26 LTS");
  await page.getByRole("checkbox", { name: "Email" }).uncheck(); // the webhook alone
  await page.getByLabel("Webhook URL", { exact: true }).fill(`${receiverUrl()}/n`);
  await page.getByRole("button", { name: "Create watch" }).click();
  await expect(page).toHaveURL(/\/dashboard\/w\//);
  // The first check finds something and notifies the webhook.
  await expect(page.getByRole("heading", { name: "PostgreSQL 19 Beta 1 is out" })).toBeVisible({ timeout: 30_000 });

  await page.getByRole("link", { name: "Notifications", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard\/notifications$/);
  // Delivery runs right after the check; the history shows it once recorded.
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("cell", { name: /^Webhook/ })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await page.getByLabel("Channel").selectOption("email");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByText("Nothing matches these filters.")).toBeVisible();
  await page.getByLabel("Channel").selectOption("webhook");
  await page.getByLabel("Watch").selectOption({ label: "Node 26 LTS" });
  await page.getByRole("button", { name: "Filter" }).click();
  const row = page.getByRole("row").filter({ hasText: `${receiverUrl()}/n` });
  await expect(row).toContainText("Condition met");
  await expect(row).toContainText("✓ Delivered");
  await expectAccessible(page);
  await screenshot(page, "notifications");

  // The signing secret lives with the API key, in Settings → Developers.
  await page.getByRole("link", { name: "Settings → Developers" }).click();
  await expect(page).toHaveURL(/\/dashboard\/settings#developers$/);

  await page.getByRole("button", { name: "Reveal signing secret" }).click();
  const first = await page.getByTestId("webhook-secret").textContent();
  expect(first).toMatch(/^whsec_/);
  await page.getByRole("button", { name: "Rotate", exact: true }).click();
  await page.getByRole("button", { name: "Rotate secret" }).click();
  await expect(page.getByText("Secret rotated")).toBeVisible();
  await expect(page.getByTestId("webhook-secret")).not.toHaveText(first!);
  await screenshot(page, "settings-developers");
});

test("a user without the developer role gets an explanation instead of API keys", async ({
  page,
  context,
  baseURL,
}) => {
  await context.clearCookies();
  await signIn(context, baseURL!, newClerkUserId("user"));
  await page.goto("/dashboard/settings");
  await expect(page.getByText("API keys are for developer and admin accounts.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Create API key" })).toHaveCount(0);
});

test("signed out, the dashboard sends you to sign in", async ({ browser, baseURL }) => {
  const context = await browser.newContext();
  await context.route(/accounts\.dev/, (r) => r.abort());
  const page = await context.newPage();
  const res = await page.request.get(`${baseURL}/dashboard`, { maxRedirects: 0 });
  expect([302, 307]).toContain(res.status());
  await context.close();
});

test("an expired session token is refreshed through Clerk's browser SDK and the action retried", async ({
  page,
  context,
  baseURL,
  userId,
}) => {
  await page.goto("/dashboard/new");
  await page.getByLabel("What should the agent look for?").fill("Session refresh");
  await page.getByLabel("Start paused").check();
  // The tab slept: the cookie's token expired. Clerk's SDK (stubbed here) hands out a fresh one on request.
  await context.addCookies([
    { name: "__session", value: await sessionToken(userId, { expiresIn: 60, issuedAgo: 600 }), url: baseURL! },
  ]);
  const fresh = await sessionToken(userId);
  await page.evaluate((token) => {
    (window as unknown as { Clerk: unknown }).Clerk = {
      session: { getToken: async () => ((document.cookie = `__session=${token}; path=/`), token) },
    };
  }, fresh);
  await page.getByRole("button", { name: "Create watch" }).click();
  await expect(page).toHaveURL(/\/dashboard\/w\//);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Session refresh");
});
