/** Control and cost, in the browser: preview a condition before saving it, the usage panel, the definition history, email settings, the paged list. */
import { clerkTest as test, expect, expectAccessible, screenshot, sessionToken } from "./fixtures";

test("Preview shows what the agent would answer now and saves nothing; the usage panel counts that check", async ({
  page,
  request,
  userId,
}) => {
  await page.goto("/dashboard/new");
  await page.getByLabel("What should the agent look for?").fill("PostgreSQL 19 beta preview");
  await page.getByLabel("Independent sites needed").selectOption("2");
  await page.getByRole("button", { name: "Preview" }).click();
  const preview = page.getByTestId("preview");
  await expect(preview.getByText("PostgreSQL 19 Beta 1 was released today.")).toBeVisible({ timeout: 30_000 });
  await expect(preview.getByText("met", { exact: true })).toBeVisible();
  await expect(preview.getByText("90% sure")).toBeVisible();
  await expect(preview.getByText("held: 1 independent source, 2 required")).toBeVisible();
  await expect(preview.getByRole("link", { name: "PostgreSQL 19 Beta 1 Released" })).toHaveAttribute(
    "href",
    "https://www.postgresql.org/about/news/pg19-beta1/",
  );
  await expect(preview.getByText(/^Next check it would pick: .+ \(Beta 2 is weeks away\)$/)).toBeVisible();
  await screenshot(page, "watch-preview");
  await expectAccessible(page);

  const headers = { authorization: `Bearer ${await sessionToken(userId)}` };
  expect(await (await request.get("/api/v1/tasks", { headers })).json()).toEqual([]);

  await page.goto("/dashboard/settings");
  const usage = page.getByTestId("usage");
  await expect(usage.getByRole("heading", { name: "Usage this month" })).toBeVisible();
  await expect(usage.getByText(/^1 of \d+/)).toBeVisible();
  await expect(usage.getByText(/^\d[\d,]* in, \d[\d,]* out$/)).toBeVisible();
  await expect(usage.getByText("0 of 50")).toBeVisible(); // active watches
  await expectAccessible(page);
});

test("the watch page keeps the definition's history, in words", async ({ page, request, userId }) => {
  const headers = { authorization: `Bearer ${await sessionToken(userId)}` };
  await request.post("/auth/sync-user", { headers });
  const watch = await (
    await request.post("/api/v1/tasks", {
      headers,
      data: { search_query: "Rust 2027 edition", name: "rust", state: "paused" },
    })
  ).json();
  await page.goto(`/dashboard/w/${watch.id}`);
  const history = page.locator("#history");
  await expect(history.getByText("Unchanged since it was created.")).toBeVisible();
  expect(
    (
      await request.put(`/api/v1/tasks/${watch.id}`, {
        headers,
        data: { name: "rust edition", condition_description: "the edition is stabilised" },
      })
    ).ok(),
  ).toBe(true);
  await page.reload();
  const change = history.getByRole("listitem");
  await expect(change).toHaveCount(1);
  await expect(change).toContainText("Name: “rust” → “rust edition”");
  await expect(change).toContainText("Tell me when: “Rust 2027 edition” → “the edition is stabilised”");
  const resumed = await request.put(`/api/v1/tasks/${watch.id}`, { headers, data: { state: "active" } });
  expect(resumed.ok(), await resumed.text()).toBe(true);
  await page.reload();
  await expect(change.filter({ hasText: /Resumed$/ })).toHaveCount(1);
  await screenshot(page, "watch-history");
});

test("email settings: time zone, quiet hours and the daily digest are saved and shown again", async ({ page }) => {
  await page.goto("/dashboard/settings");
  const form = page.getByTestId("email-settings");
  await form.getByLabel("Time zone").selectOption("Europe/Berlin");
  await form.getByLabel("Hold email during these hours").check();
  await form.getByLabel("From").fill("22:30");
  await form.getByLabel("to", { exact: true }).fill("07:00");
  await form.getByLabel("Findings by email").selectOption("daily");
  await form.getByRole("button", { name: "Save email settings" }).click();
  await expect(page.getByText("Settings saved")).toBeVisible();
  await page.reload();
  await expect(form.getByLabel("Time zone")).toHaveValue("Europe/Berlin");
  await expect(form.getByLabel("Hold email during these hours")).toBeChecked();
  await expect(form.getByLabel("From")).toHaveValue("22:30");
  await expect(form.getByLabel("to", { exact: true })).toHaveValue("07:00");
  await expect(form.getByLabel("Findings by email")).toHaveValue("daily");
  await expectAccessible(page);
});

test("the watch list pages by 50, with previous and next links that keep the order", async ({
  page,
  request,
  userId,
}) => {
  const headers = { authorization: `Bearer ${await sessionToken(userId)}` };
  await request.post("/auth/sync-user", { headers });
  for (let i = 1; i <= 51; i++) {
    const name = `Paged ${String(i).padStart(2, "0")}`;
    const res = await request.post("/api/v1/tasks", { headers, data: { search_query: name, name, state: "paused" } });
    expect(res.ok()).toBe(true);
  }
  await page.goto("/dashboard?sort=created");
  const rows = page.getByRole("row").filter({ hasText: /Paged \d\d/ });
  await expect(rows).toHaveCount(50);
  await expect(rows.first()).toContainText("Paged 51");
  const pager = page.getByRole("navigation", { name: "Pages" });
  await expect(pager.getByRole("link")).toHaveText(["Next →"]);
  await expect(pager).toContainText("Page 1 of 2 · 51 watches");
  await pager.getByRole("link", { name: "Next →" }).click();
  await expect(page).toHaveURL(/[?&]page=2/);
  await expect(page).toHaveURL(/[?&]sort=created/);
  await expect(rows).toHaveText([/Paged 01/]);
  await expect(pager.getByRole("link")).toHaveText(["← Previous"]);
  await expect(pager).toContainText("Page 2 of 2");
  for (const width of [1366, 390])
    for (const colorScheme of ["light", "dark"] as const) {
      await page.setViewportSize({ width, height: 844 });
      await page.emulateMedia({ colorScheme });
      await screenshot(page, `dashboard-page-2-${width}-${colorScheme}`, { settled: true });
    }
  await expectAccessible(page);
  await pager.getByRole("link", { name: "← Previous" }).click();
  await expect(rows).toHaveCount(50);
});
