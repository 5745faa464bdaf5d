import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";

test("the home page renders and is accessible", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Watch");
  await page.screenshot({ path: "e2e/screenshots/home.png", fullPage: true });
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
});

test("the API answers the browser with JSON", async ({ request }) => {
  const res = await request.get("/api/v1/openapi.json");
  expect(res.ok()).toBe(true);
  expect((await res.json()).paths["/api/v1/tasks"]).toBeTruthy();
});
