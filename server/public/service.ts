/**
 * What anonymous visitors read: the public watch directory, a watch's findings as RSS and JSON Feed, its verdict
 * badge, and the waitlist.
 */
import { Feed, type FeedOptions, type Item } from "feed";
import { DomainError, notFound } from "../errors";
import { env } from "../env";
import { db, Prisma } from "../db";
import { lockKey, prismaQuery, sql } from "../db/sql";
import { findTasks, findVerdict, pageOfTasks } from "../tasks/reads";
import { findingAnchor, listPublicFindings } from "../tasks/findings";
import { renderMarkdown, renderSourceList } from "../render/markdown";
import type { TaskView } from "../tasks/schemas";
import { publicTaskView, verdictFor } from "../tasks/views";
import { verdictBadge } from "./verdict";
import { forgetOnStop } from "../start-state";

export type PublicListQuery = { sort: "recent" | "popular"; q?: string; limit: number; offset: number };

/**
 * The directory counts matches exactly up to this many; past it, `total` is this and `capped` says "more": an exact
 * count of a common term reads every match, however few are shown.
 */
export const PUBLIC_COUNT_CAP = 1000;

export async function listPublicTasks(query: PublicListQuery) {
  const filter = { publicOnly: true, search: query.q?.trim() || undefined };
  const { rows, total: count } = await pageOfTasks(
    filter,
    { order: query.sort, limit: query.limit, offset: query.offset, publicLast: true },
    PUBLIC_COUNT_CAP,
  );
  const capped = count > PUBLIC_COUNT_CAP;
  return { tasks: rows.map(publicTaskView), total: capped ? PUBLIC_COUNT_CAP : count, capped };
}

export async function listUserPublicTasks(username: string) {
  const user = await db.user.findUnique({
    where: { username: username.toLowerCase() },
    select: { id: true, username: true },
  });
  if (!user) throw notFound("User");
  const rows = await findTasks({ userId: user.id, publicOnly: true }, { publicLast: true });
  return { username: user.username!, tasks: rows.map(publicTaskView) };
}

const TRENDING_TTL_MS = 60_000;
let trending: { at: number; watches: Promise<{ tasks: TaskView[]; audiences: Map<string, Audience> }> } | undefined;
forgetOnStop(() => (trending = undefined));

/**
 * The most followed public watches with their verdicts, for the home page. Read at most once a minute per process:
 * the home page is the most visited one and the list changes slowly.
 */
export function trendingWatches(now = Date.now()) {
  if (!trending || now - trending.at > TRENDING_TTL_MS) {
    const watches = findTasks({ publicOnly: true }, { order: "popular", limit: 6 }).then(async (rows) => {
      const tasks = rows.map(publicTaskView);
      return { tasks, audiences: await audienceOf(tasks) };
    });
    const entry = { at: now, watches };
    trending = entry;
    // A failed read is not kept: the next visitor tries again.
    watches.catch(() => trending === entry && (trending = undefined));
  }
  return trending.watches;
}

export type Audience = { following: number; forks: number };

/**
 * How many follow each watch (confirmed follows) and how many other people forked it, for pages that name both
 * (`subscriber_count` counts them together). One read for all the watches of a page.
 */
export async function audienceOf(tasks: { id: string }[]): Promise<Map<string, Audience>> {
  const rows = tasks.length
    ? await sql<{ id: string; following: number; forks: number }>(
        `SELECT t.id,
                (SELECT count(*)::int FROM follows f WHERE f.task_id = t.id AND f.confirmed_at IS NOT NULL) AS following,
                (SELECT count(DISTINCT c.user_id)::int FROM tasks c
                  WHERE c.forked_from_task_id = t.id AND c.user_id IS DISTINCT FROM t.user_id) AS forks
           FROM tasks t WHERE t.id = ANY($1::uuid[])`,
        [tasks.map((t) => t.id)],
      )
    : [];
  const byId = new Map(rows.map((r) => [r.id, { following: r.following, forks: r.forks }]));
  return new Map(tasks.map((t) => [t.id, byId.get(t.id) ?? { following: 0, forks: 0 }]));
}

/**
 * Item titles go into CDATA sections, and the feed library escapes only the first "]]>" of a text: the title of a
 * finding (model output) could close its section and write raw XML into the feed.
 */
const cdataText = (s: string) => s.replaceAll("]]>", "]] >");

const feedUrls = (taskId: string) => ({
  rss: `${env.APP_URL}/api/v1/public/tasks/id/${taskId}/rss`,
  json: `${env.APP_URL}/api/v1/public/tasks/id/${taskId}/feed.json`,
});

/** The findings a feed carries (its newest): a reader sees each finding once, never one item per re-check. */
const FEED_FINDINGS = 50;

/**
 * A public watch's feed items, newest first: one per notified finding (its id stable for the watch and the finding's
 * key, so a re-check that confirms it adds nothing), and a retraction as an item of its own. Held findings are never
 * in it. The one list both feeds are built from.
 */
async function publicFeed(taskId: string) {
  const task = await db.task.findFirst({ where: { id: taskId, is_public: true } });
  if (!task) throw notFound();
  const page = `${env.APP_URL}/w/${task.id}`;
  const options: FeedOptions = {
    title: `Watch: ${task.name}`,
    description: `Findings for “${task.condition_description}”`,
    id: page,
    link: page,
    copyright: "",
    updated: task.updated_at ?? task.created_at,
    feedLinks: feedUrls(task.id),
  };
  const { findings } = await listPublicFindings(task.id, { limit: FEED_FINDINGS, offset: 0 });
  const items: Item[] = [];
  for (const f of findings) {
    const anchor = findingAnchor(task.id, f.key);
    const description =
      renderMarkdown(f.answer) + (f.sources.length ? `<p>Sources:</p>${renderSourceList(f.sources)}` : "");
    const found = new Date(f.first_found_at);
    items.push({ title: f.title, id: `${page}#${anchor}`, link: `${page}#${anchor}`, description, date: found });
    if (f.retracted_at) {
      const at = new Date(f.retracted_at);
      const id = `${page}#${anchor}-retracted`;
      items.push({ title: `Retracted: ${f.title}`, id, link: `${page}#${anchor}`, description, date: at });
    }
  }
  for (const i of items) i.published = i.date;
  return { options, items: items.sort((a, b) => b.date.getTime() - a.date.getTime()) };
}

/** RSS 2.0 of a public watch's findings and their retractions. */
export async function publicTaskRss(taskId: string) {
  const { options, items } = await publicFeed(taskId);
  const feed = new Feed(options);
  for (const i of items) feed.addItem({ ...i, title: cdataText(i.title) });
  return feed.rss2();
}

const JSON_FEED_1_1 = "https://jsonfeed.org/version/1.1";

/**
 * The same items as JSON Feed 1.1. The feed library writes the 1.0 version URL; what it writes is also valid 1.1
 * (no `author`, which 1.1 deprecates), so only the version changes.
 */
export async function publicTaskJsonFeed(taskId: string) {
  const { options, items } = await publicFeed(taskId);
  const feed = new Feed(options);
  for (const i of items) feed.addItem(i);
  return JSON.stringify({ ...(JSON.parse(feed.json1()) as object), version: JSON_FEED_1_1 });
}

/** The badge of a public watch's verdict (SVG). */
export async function publicTaskBadge(taskId: string) {
  const row = await findVerdict(taskId);
  if (!row?.is_public) throw notFound();
  return verdictBadge(verdictFor(row, "public"));
}

export async function joinWaitlist(rawEmail: string) {
  const email = rawEmail.trim().toLowerCase();
  try {
    const position = await db.$transaction(async (tx) => {
      // Positions are dense (1, 2, 3 …): joins are serialised by a transaction-scoped advisory lock.
      await lockKey(prismaQuery(tx), "waitlist");
      const last = await tx.waitlistEntry.findFirst({ orderBy: { position: "desc" }, select: { position: true } });
      const entry = await tx.waitlistEntry.create({ data: { email, position: (last?.position ?? 0) + 1 } });
      return entry.position;
    });
    return { message: "You're on the waitlist. We'll email you when your spot opens.", position };
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002")
      throw new DomainError("conflict", "Email already on waitlist");
    throw e;
  }
}

export async function listWaitlist() {
  const rows = await db.waitlistEntry.findMany({ orderBy: { position: "asc" } });
  return rows.map((r) => ({ email: r.email, position: r.position, created_at: r.created_at.toISOString() }));
}
