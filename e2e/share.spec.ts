/** In a real browser: a public watch's page leads with its verdict, shows the live badge and copies its embed snippets. */
import { checksDone, expect, expectAccessible, noauthTest as test, publish, screenshot } from "./fixtures";

test("the verdict card, the badge and the embed snippets, copied with one click", async ({
  page,
  context,
  request,
}) => {
  const task = await (
    await request.post("/api/v1/tasks", {
      data: { search_query: "Is Postgres 19 beta out?", name: "Is Postgres 19 beta out?", run_immediately: true },
    })
  ).json();
  await checksDone(request, task.id);
  await publish(request, task.id);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);

  await page.goto(`/w/${task.id}`);
  const card = page.getByRole("region", { name: "Met Yes, per these sources" });
  await expect(card).toBeVisible();
  await expect(card.getByText(/^Found \d{1,2} \w{3} \d{4}$/)).toBeVisible();
  await expect(card.getByText("PostgreSQL 19 Beta 1 was released today.")).toBeVisible();
  await expect(card.getByRole("link", { name: "PostgreSQL 19 Beta 1 Released" })).toHaveAttribute(
    "href",
    "https://www.postgresql.org/about/news/pg19-beta1/",
  );

  const embed = page.getByRole("region", { name: "Embed the verdict" });
  const badge = embed.getByRole("img", { name: /^watch: met · / });
  await expect(badge).toBeVisible();
  expect(await badge.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true); // loaded under the page's policy

  const markdown = await embed.getByLabel("Markdown").textContent();
  expect(markdown).toMatch(
    new RegExp(
      `^\\[!\\[Watch: Is Postgres 19 beta out\\?\\]\\(http[^)]+/api/v1/public/tasks/id/${task.id}/badge\\.svg\\)\\]\\(http[^)]+/w/${task.id}\\)$`,
    ),
  );
  await embed.getByRole("button", { name: "Copy Markdown" }).click();
  await expect(page.getByText("Copied")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(markdown);
  await embed.getByRole("button", { name: "Copy HTML" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await embed.getByLabel("HTML").textContent());

  // The "Copied" toasts fade first: the screenshot is of the page, not of them.
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0, { timeout: 15_000 });
  await screenshot(page, "public-watch-verdict");
  await expectAccessible(page);
});
