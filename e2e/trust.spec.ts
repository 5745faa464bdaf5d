/** Trust in a finding, in the browser: a held finding says why, a retracted one is marked, a webhook is redelivered. */
import { checksDone, expect, expectAccessible, noauthTest as test, publish, receiverUrl, screenshot } from "./fixtures";

const unique = (what: string) => `${what} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

test("a finding held by the watch's bounds says why; a retracted finding is marked on the dashboard and the public page", async ({
  page,
  request,
}) => {
  const held = await (
    await request.post("/api/v1/tasks", {
      data: { search_query: unique("held finding"), min_sources: 2, run_immediately: true },
    })
  ).json();
  await checksDone(request, held.id, 1);
  await page.goto(`/dashboard/w/${held.id}`);
  await expect(page.getByTestId("held").first()).toHaveText("held: 1 independent source, 2 required");
  await screenshot(page, "watch-held");
  await expectAccessible(page);

  const query = unique("withdrawn announcement");
  const watch = await (
    await request.post("/api/v1/tasks", { data: { search_query: query, name: query, run_immediately: true } })
  ).json();
  await checksDone(request, watch.id, 1);
  await publish(request, watch.id);
  expect((await request.post(`/api/v1/tasks/${watch.id}/execute`)).ok()).toBe(true);
  await checksDone(request, watch.id, 2);

  await page.goto(`/dashboard/w/${watch.id}`);
  await expect(page.getByTestId("finding").getByTestId("retracted")).toHaveText(/^retracted \d+ \w+ \d{4}$/);
  await expect(page.getByRole("heading", { name: "Retracted: PostgreSQL 19 Beta 1 is out" })).toBeVisible();
  await page.getByText("Latest check in full").click();
  await expect(page.getByText("this check retracted the earlier finding")).toBeVisible();
  await page.goto(`/w/${watch.id}`);
  await expect(page.getByRole("heading", { name: "Retracted: PostgreSQL 19 Beta 1 is out" })).toBeVisible();
  await screenshot(page, "public-watch-retracted");
  await expectAccessible(page);
});

test("a delivered webhook is redelivered from the send history as a new attempt", async ({ page, request }) => {
  const name = unique("replayed webhook");
  const watch = await (
    await request.post("/api/v1/tasks", {
      data: {
        search_query: name,
        name,
        run_immediately: true,
        notifications: [{ type: "webhook", url: `${receiverUrl()}/redeliver` }],
      },
    })
  ).json();
  await checksDone(request, watch.id, 1);
  await page.goto(`/dashboard/notifications?task_id=${watch.id}`);
  const sent = page.getByRole("row").filter({ hasText: `${receiverUrl()}/redeliver` });
  await expect(async () => {
    await page.reload();
    await expect(sent.getByText("✓ Delivered", { exact: true })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await sent.getByRole("button", { name: "Redeliver" }).click();
  await expect(page.getByText("Redelivered", { exact: true })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("cell", { name: "Condition met 2nd attempt" })).toBeVisible();
  await expect(sent).toHaveCount(2);
  await expectAccessible(page);
});
