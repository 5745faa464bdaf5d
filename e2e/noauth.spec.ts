import { expect, expectAccessible, noauthTest as test, screenshot, testUsername } from "./fixtures";

test("SERVICE_NOAUTH=1: the dashboard works on localhost as the test user, no sign-in", async ({ page }) => {
  test.setTimeout(120_000); // a whole check and three pages with axe: more than a minute on a busy machine
  await page.goto("/dashboard");
  await expect(page.getByRole("heading", { name: "Your watches" })).toBeVisible();
  await page.getByRole("link", { name: "New watch" }).first().click();
  await page.getByLabel("What should the agent look for?").fill("Debian 14 release date");
  await page.getByRole("button", { name: "Create watch" }).click();
  await expect(page).toHaveURL(/\/dashboard\/w\//);
  await expect(page.getByText("PostgreSQL 19 Beta 1 was released today.").first()).toBeVisible({ timeout: 30_000 });
  await page.goto("/dashboard");
  await expect(page.getByRole("link", { name: "Debian 14 release date" })).toBeVisible();
  await screenshot(page, "dashboard-list");
  await expectAccessible(page);

  // The test user is an admin: the waitlist is one click away.
  await page.getByRole("link", { name: "Waitlist" }).click();
  await expect(page.getByRole("heading", { name: "Waitlist" })).toBeVisible();
  await expectAccessible(page);

  await page.goto("/sign-in");
  await expect(page.getByRole("heading", { name: "Sign-in is not configured" })).toBeVisible();
});

test("phone width: the watch list and form stay usable", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/dashboard/new");
  await page.getByRole("button", { name: "Create watch" }).scrollIntoViewIfNeeded();
  await expect(page.getByRole("button", { name: "Create watch" })).toBeInViewport();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshot(page, "watch-new-phone");
});

test("every other page renders without serious accessibility violations", async ({ page, request }) => {
  test.setTimeout(120_000); // five pages, each with axe: more than a minute on a busy machine
  const task = await (
    await request.post("/api/v1/tasks", { data: { search_query: "Pages tour", state: "paused" } })
  ).json();
  const username = await testUsername(request);
  expect(username).toBeTruthy();
  expect((await request.patch(`/api/v1/tasks/${task.id}/visibility`, { data: { is_public: true } })).ok()).toBe(true);
  const pages: [string, string][] = [
    [`/dashboard/w/${task.id}/edit`, "watch-edit"],
    ["/dashboard/settings", "settings-admin"],
    ["/explore", "explore"],
    [`/u/${username}`, "user-page"],
    ["/sign-in", "sign-in-unconfigured"],
  ];
  for (const [path, name] of pages) {
    const res = await page.goto(path);
    expect(res!.status(), path).toBe(200);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await screenshot(page, name);
    await expectAccessible(page);
  }
});
