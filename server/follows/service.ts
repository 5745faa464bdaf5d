/**
 * Following a public watch without forking it: by email (double opt-in, no account) or signed in with one's own
 * channels. A follower gets the watch's findings and retractions; the owner sees only how many follow
 * (./subscribers counts them in the transaction of every change). A watch made private or deleted loses its follows.
 *
 * Anyone can ask for a confirmation to be mailed to any address, so confirmations are rationed: one per mailbox and
 * watch while its link is valid (a repeat request answers the same and sends nothing), under caps of their own
 * (server/notify/deliveries.ts) that never touch a recipient's alert caps, and saying nothing live of the owner's
 * choosing. A follow not confirmed within the link's lifetime is deleted by the daily retention job.
 *
 * The answer does the same work whether the address is new, pending or confirmed, and never waits for an email (how
 * long it took would tell which): the follow records the confirmation it owes (`confirmation_due_at`, in the follow's
 * own transaction), and the owed confirmations are sent after the answer, one at a time, by whichever process
 * (re)starts or records one next: none is lost to a crash, and none is sent twice (taking one and claiming its send
 * are one transaction).
 */
import { after } from "next/server";
import { DomainError, notFound } from "../errors";
import { db, Prisma, type User } from "../db";
import { lockKey, prismaQuery, transaction } from "../db/sql";
import { ConfirmFollow } from "../../emails/watch-notification";
import { claimEmail, sendClaimed } from "../notify/email";
import { log } from "../observability/log.mjs";
import { FOLLOW_CONFIRM_TTL_MS, followConfirmUrl, readToken, watchUrl } from "../notify/links";
import { mailboxOf } from "../notify/mailbox";
import { defang } from "../../lib/defang";
import { recountSubscribers } from "./subscribers";
import { parseNotifications } from "../tasks/notifications";
import { findTasks } from "../tasks/reads";
import { channelConfigs, publicTaskView } from "../tasks/views";
import type { NotificationConfig } from "../tasks/schemas";

export const CHECK_INBOX = "Check your inbox to confirm." as const;
const INVALID_TOKEN = "Invalid or expired token";

async function publicWatch(taskId: string) {
  const task = await db.task.findFirst({
    where: { id: taskId, is_public: true },
    select: { id: true, name: true, user_id: true, is_public: true },
  });
  if (!task) throw notFound();
  return task;
}

/** How much of an owner-chosen name a confirmation quotes. */
const QUOTED_NAME = 120;
const quoted = (name: string) => {
  const one = name.replace(/\s+/g, " ").trim();
  return defang(one.length > QUOTED_NAME ? `${one.slice(0, QUOTED_NAME - 1)}…` : one);
};

/**
 * Claims the confirmation of a follow of `mailbox`, under a lock per watch and mailbox, in one statement whatever it
 * finds (so that how long it takes tells nothing): when the mailbox follows already, or its link is still valid,
 * nothing changes (false); otherwise an earlier request whose link expired or never went out is replaced by a new
 * follow whose link is marked sent and whose confirmation is owed (true), so the new link is the only one.
 */
async function claimConfirmation(taskId: string, email: string, mailbox: string) {
  return transaction(async (query) => {
    await lockKey(query, `follow:${taskId}:${mailbox}`);
    const [row] = await query<{ claimed: boolean }>(
      `WITH live AS (
         SELECT 1 FROM follows
          WHERE task_id = $1 AND mailbox = $2
            AND (confirmed_at IS NOT NULL OR confirmation_sent_at > now() - make_interval(secs => $4::float8 / 1000))
       ), replaced AS (
         DELETE FROM follows
          WHERE task_id = $1 AND mailbox = $2 AND confirmed_at IS NULL AND NOT EXISTS (SELECT 1 FROM live)
         RETURNING 1
       ), claimed AS (
         -- After the replaced rows are gone (counting them runs the delete first): the address may be the same.
         INSERT INTO follows (id, task_id, email, mailbox, confirmation_sent_at, confirmation_due_at)
         SELECT gen_random_uuid(), $1, $3, $2, now(), now()
          WHERE NOT EXISTS (SELECT 1 FROM live) AND (SELECT count(*) FROM replaced) >= 0
         RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM claimed) AS claimed`,
      [taskId, mailbox, email, FOLLOW_CONFIRM_TTL_MS],
    );
    return row!.claimed;
  });
}

/**
 * A follow by email: the same answer whether or not the address already follows, and whether or not a mail goes out
 * (no enumeration, no signal for whoever probes the caps); the confirmation is sent after the answer.
 */
export async function followByEmail(taskId: string, rawEmail: string) {
  await publicWatch(taskId);
  const email = rawEmail.trim().toLowerCase();
  if (await claimConfirmation(taskId, email, mailboxOf(email))) afterTheAnswer(sendConfirmations);
  return { message: CHECK_INBOX };
}

/** Once the answer has been sent (Next.js's `after`); at once outside a request (the in-process tests call directly). */
function afterTheAnswer(task: () => void) {
  try {
    after(task);
  } catch {
    task();
  }
}

const g = globalThis as unknown as { __watchConfirmations?: { running?: Promise<void>; again: boolean } };
const confirmations = () => (g.__watchConfirmations ??= { again: false });

/**
 * Sends the confirmations owed, in the background; one run at a time per process (a call during a run makes it look
 * again when it ends). Called once a follow that owes one has been answered, and at start-up, where it also sends what
 * a process that stopped or crashed before sending still owed.
 */
export function sendConfirmations() {
  const state = confirmations();
  state.again = true;
  state.running ??= (async () => {
    await new Promise((resolve) => setImmediate(resolve));
    while (state.again) {
      state.again = false;
      try {
        await sendOwedConfirmations();
      } catch (e) {
        log.error(`follow confirmations not sent yet: ${(e as Error).message}`);
      }
    }
    state.running = undefined;
  })();
}

/** Until the confirmations under way are sent, or `ms` has passed (a shutdown: what is left is sent at the next start). */
export async function confirmationsSent(ms: number) {
  const running = confirmations().running;
  if (running) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
}

async function sendOwedConfirmations() {
  for (;;) {
    const owed = await db.follow.findMany({
      where: { confirmation_due_at: { not: null } },
      orderBy: { confirmation_due_at: "asc" },
      select: { id: true },
      take: 20,
    });
    if (!owed.length) return;
    for (const { id } of owed) await sendConfirmation(id);
  }
}

/**
 * One owed confirmation: taken (no longer owed) and its send claimed in one transaction, so that two processes never
 * both send it and a crash leaves it either owed or claimed; then sent. One not sent (a cap, the provider) frees its
 * link: a later request may try again.
 */
async function sendConfirmation(id: string) {
  const claimed = await db.$transaction(async (tx) => {
    const taken = await tx.follow.updateMany({
      where: { id, confirmation_due_at: { not: null } },
      data: { confirmation_due_at: null },
    });
    if (!taken.count) return null;
    const follow = await tx.follow.findUnique({
      where: { id },
      include: { task: { select: { id: true, name: true, is_public: true } } },
    });
    if (!follow?.email || follow.confirmed_at || !follow.task.is_public) return null;
    const claim = await claimEmail(
      {
        user_id: null,
        audience: `follow:${id}`,
        task_id: follow.task_id,
        execution_id: null,
        event: "follow.confirmation",
        recipient: follow.email,
      },
      null,
      prismaQuery(tx),
    );
    return { claim, email: follow.email, task: follow.task };
  });
  if (!claimed) return;
  const { task } = claimed;
  const sent = await sendClaimed(claimed.claim, claimed.email, async () => ({
    subject: "Confirm your follow on Watch",
    react: ConfirmFollow({
      confirmUrl: await followConfirmUrl(id),
      watchName: quoted(task.name),
      watchUrl: watchUrl(task),
    }),
  }));
  if (sent.status !== "sent")
    await db.follow.updateMany({ where: { id, confirmed_at: null }, data: { confirmation_sent_at: null } });
}

/**
 * What a confirmation link is about, for its page to name the watch and the address before anything is done; null
 * for a link that is not genuine or current, or whose watch is no longer public.
 */
export async function followToConfirm(token: string) {
  const id = await readToken("follow-confirm", token);
  const follow = id
    ? await db.follow.findUnique({
        where: { id },
        include: { task: { select: { id: true, name: true, is_public: true } } },
      })
    : null;
  if (!follow?.email || !follow.task.is_public) return null;
  return {
    task: { id: follow.task.id, name: follow.task.name },
    email: follow.email,
    confirmed: !!follow.confirmed_at,
  };
}

/** The button behind a confirmation link. */
export async function confirmFollow(token: string) {
  const id = await readToken("follow-confirm", token);
  const follow = id
    ? await db.follow.findUnique({ where: { id }, include: { task: { select: { is_public: true } } } })
    : null;
  if (!follow?.email || !follow.task.is_public) throw new DomainError("invalid", INVALID_TOKEN);
  if (!follow.confirmed_at)
    await db.$transaction(async (tx) => {
      await tx.follow.updateMany({ where: { id: follow.id, confirmed_at: null }, data: { confirmed_at: new Date() } });
      await recountSubscribers(prismaQuery(tx), [follow.task_id]);
    });
  return { task_id: follow.task_id, email: follow.email };
}

/** The button behind an unsubscribe link (and RFC 8058's one-click POST). Unsubscribing twice is fine. */
export async function unsubscribe(token: string) {
  const id = await readToken("unsubscribe", token);
  if (!id) throw new DomainError("invalid", INVALID_TOKEN);
  const follow = await db.follow.findUnique({ where: { id }, select: { task_id: true } });
  if (follow) await end(follow.task_id, { id });
  return { status: "unsubscribed" as const, task_id: follow?.task_id ?? null };
}

async function end(taskId: string, where: Prisma.FollowWhereInput) {
  await db.$transaction(async (tx) => {
    await tx.follow.deleteMany({ where: { task_id: taskId, ...where } });
    await recountSubscribers(prismaQuery(tx), [taskId]);
  });
}

const followView = (f: { task_id: string; notifications: Prisma.JsonValue; created_at: Date }) => ({
  task_id: f.task_id,
  notifications: channelConfigs(f.notifications as NotificationConfig[]),
  created_at: f.created_at.toISOString(),
});

/** Follow (or change the channels of a follow) as a signed-in user: `created` tells 201 from 200. */
export async function followAsUser(user: User, taskId: string, notifications: unknown[]) {
  const task = await publicWatch(taskId);
  if (task.user_id === user.id) throw new DomainError("invalid", "You own this task");
  const existing = await db.follow.findUnique({ where: { task_id_user_id: { task_id: taskId, user_id: user.id } } });
  const stored = (existing?.notifications ?? []) as NotificationConfig[];
  const configs = parseNotifications(notifications, stored) as Prisma.InputJsonValue;
  const follow = await db.$transaction(async (tx) => {
    const saved = existing
      ? await tx.follow.update({ where: { id: existing.id }, data: { notifications: configs, updated_at: new Date() } })
      : await tx.follow.create({
          data: { task_id: taskId, user_id: user.id, notifications: configs, confirmed_at: new Date() },
        });
    if (!existing) await recountSubscribers(prismaQuery(tx), [taskId]);
    return saved;
  });
  return { created: !existing, follow: followView(follow) };
}

export async function unfollow(user: User, taskId: string) {
  await publicWatch(taskId);
  await end(taskId, { user_id: user.id });
}

/** The caller's follows with each watch's public view, newest first (one read for all the watches). */
export async function listFollows(user: User) {
  const follows = await db.follow.findMany({ where: { user_id: user.id }, orderBy: { created_at: "desc" } });
  const tasks = new Map(
    (await findTasks({ ids: follows.map((f) => f.task_id) }, { publicLast: true })).map((t) => [t.id, t]),
  );
  return follows.flatMap((f) => {
    const task = tasks.get(f.task_id);
    return task ? [{ task: publicTaskView(task), ...followView(f) }] : [];
  });
}

/** A watch made private stops all its follows (forks stay: they are their holders' own watches). */
export async function endAllFollows(tx: Prisma.TransactionClient, taskId: string) {
  await tx.follow.deleteMany({ where: { task_id: taskId } });
  await recountSubscribers(prismaQuery(tx), [taskId]);
}

/** Whether `user` follows the watch (its public page shows Follow or Unfollow). */
export async function isFollowing(user: User, taskId: string) {
  return (await db.follow.count({ where: { task_id: taskId, user_id: user.id } })) > 0;
}
