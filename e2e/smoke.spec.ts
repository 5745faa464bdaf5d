import { expect, expectAccessible, noauthTest as test, screenshot } from "./fixtures";

test("the home page renders and is accessible", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Watch");
  await screenshot(page, "home");
  await expectAccessible(page);
});

test("the API answers the browser with JSON", async ({ request }) => {
  const res = await request.get("/api/v1/openapi.json");
  expect(res.ok()).toBe(true);
  expect((await res.json()).paths["/api/v1/tasks"]).toBeTruthy();
});

test("the API docs render offline from the OpenAPI document", async ({ page }) => {
  const external: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith("http://127.0.0.1")) external.push(r.url());
  });
  await page.goto("/docs");
  // Swagger UI parses the whole document in the browser: many seconds when the machine is busy.
  await expect(page.getByText("/api/v1/tasks/{id}/execute").first()).toBeVisible({ timeout: 45_000 });
  await expect(page.getByText("Watch API").first()).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/docs.png" });
  expect(external.filter((u) => !u.startsWith("data:"))).toEqual([]);
});
