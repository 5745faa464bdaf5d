/**
 * Following someone's public watch, in the browser: a signed-out visitor by email with a confirmation link, and a
 * signed-in visitor on their own channels, leaving from the dashboard.
 */
import type { APIRequestContext, Browser } from "@playwright/test";
import {
  clerkTest as test,
  expect,
  expectAccessible,
  newClerkUserId,
  receiverUrl,
  screenshot,
  sentEmails,
  sessionToken,
  signIn,
} from "./fixtures";

/** A public watch of the signed-in test user, with a first finding. */
async function publicWatch(request: APIRequestContext, userId: string, name: string) {
  const headers = { authorization: `Bearer ${await sessionToken(userId)}` };
  await request.post("/auth/sync-user", { headers });
  expect(
    (
      await request.patch("/api/v1/users/me/username", { headers, data: { username: `f${Date.now().toString(36)}` } })
    ).ok(),
  ).toBe(true);
  const watch = await (
    await request.post("/api/v1/tasks", { headers, data: { search_query: name, name, run_immediately: true } })
  ).json();
  expect(
    (await request.patch(`/api/v1/tasks/${watch.id}/visibility`, { headers, data: { is_public: true } })).ok(),
  ).toBe(true);
  const followers = async () =>
    (await (await request.get(`/api/v1/tasks/${watch.id}`, { headers })).json()).subscriber_count as number;
  return { id: watch.id as string, followers };
}

async function visitor(browser: Browser, baseURL: string, signedInAs?: string) {
  const context = await browser.newContext({ baseURL });
  await context.route(/clerk\.accounts\.dev|clerk\.com|accounts\.dev/, (route) => route.abort());
  if (signedInAs) await signIn(context, baseURL, signedInAs);
  return context;
}

test("a signed-out visitor follows by email and confirms through the link's page", async ({
  request,
  browser,
  baseURL,
  userId,
}) => {
  const watch = await publicWatch(request, userId, `Followed by email ${Date.now().toString(36)}`);
  const context = await visitor(browser, baseURL!);
  const page = await context.newPage();
  await page.goto(`/w/${watch.id}`);
  const address = `reader-${Date.now().toString(36)}@example.com`;
  await page.getByRole("textbox", { name: "Follow by email" }).fill(address);
  await page.getByRole("button", { name: "Follow" }).click();
  const sent = page.getByTestId("follow-sent");
  await expect(sent).toContainText(`Check your inbox: a confirmation link is on its way to ${address}.`);
  await expect(sent.getByRole("button", { name: "Send it again" })).toBeVisible();
  await expectAccessible(page);
  expect(await watch.followers()).toBe(0); // not before the confirmation

  let link = "";
  await expect(async () => {
    const email = (await sentEmails()).find((e) => [e.to].flat().includes(address));
    link = /\/follow\/confirm\?token=[^"'\s<&]+/.exec(email?.html ?? "")?.[0] ?? "";
    expect(link).not.toBe("");
  }).toPass({ timeout: 15_000 });
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Follow this watch" })).toBeVisible();
  expect(await watch.followers()).toBe(0); // opening the link does nothing by itself
  await expectAccessible(page);
  await page.getByRole("button", { name: "Confirm and follow" }).click();
  await expect(page.getByRole("status")).toHaveText("You are following this watch.");
  expect(await watch.followers()).toBe(1);
  await screenshot(page, "follow-confirmed");
  await context.close();
});

test("a signed-in visitor follows, adds a webhook and unfollows from the dashboard", async ({
  request,
  browser,
  baseURL,
  userId,
}) => {
  const name = `Followed when signed in ${Date.now().toString(36)}`;
  const watch = await publicWatch(request, userId, name);
  const context = await visitor(browser, baseURL!, newClerkUserId());
  const page = await context.newPage();
  await page.goto(`/w/${watch.id}`);
  await page.getByRole("button", { name: "Follow", exact: true }).click();
  await expect(page.getByText(/^Following: news goes to /)).toBeVisible();
  expect(await watch.followers()).toBe(1);

  await page.goto("/dashboard/following");
  const follow = page.getByTestId("follow").filter({ hasText: name });
  await expect(follow).toBeVisible();
  await follow.getByLabel("Webhook URL", { exact: true }).fill(`${receiverUrl()}/follower`);
  await follow.getByRole("button", { name: "Save channels" }).click();
  await expect(page.getByText("Channels saved")).toBeVisible();
  await page.reload();
  await expect(follow.getByLabel("Webhook URL", { exact: true })).toHaveValue(`${receiverUrl()}/follower`);
  await screenshot(page, "following");
  await expectAccessible(page);

  await follow.getByRole("button", { name: "Unfollow" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Unfollow" }).click();
  await expect(page.getByText("You follow no watch yet.")).toBeVisible();
  expect(await watch.followers()).toBe(0);
  await context.close();
});
