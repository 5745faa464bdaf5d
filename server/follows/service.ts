/**
 * Following a public watch without forking it: by email (double opt-in, no account) or signed in with one's own
 * channels. A follower gets the watch's findings and retractions; the owner sees only how many follow
 * (./subscribers counts them in the transaction of every change). A watch made private or deleted loses its follows.
 *
 * Anyone can ask for a confirmation to be mailed to any address, so confirmations are rationed: one per mailbox and
 * watch while its link is valid (a repeat request answers the same and sends nothing), under caps of their own
 * (server/notify/deliveries.ts) that never touch a recipient's alert caps, and saying nothing live of the owner's
 * choosing. A follow not confirmed within the link's lifetime is deleted by the daily retention job.
 */
import { DomainError, notFound } from "../errors";
import { db, Prisma, type User } from "../db";
import { lockKey, prismaQuery } from "../db/sql";
import { ConfirmFollow } from "../../emails/watch-notification";
import { sendRecorded } from "../notify/email";
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
 * The follow of `mailbox` that a confirmation should be sent for, claimed (its link marked sent) under a lock per
 * watch and mailbox; null when none should: it follows already, or its link is still valid.
 */
async function claimConfirmation(taskId: string, email: string, mailbox: string) {
  return db.$transaction(async (tx) => {
    await lockKey(prismaQuery(tx), `follow:${taskId}:${mailbox}`);
    const existing = await tx.follow.findMany({ where: { task_id: taskId, mailbox } });
    const now = Date.now();
    if (
      existing.some(
        (f) =>
          f.confirmed_at || (f.confirmation_sent_at && now - f.confirmation_sent_at.getTime() < FOLLOW_CONFIRM_TTL_MS),
      )
    )
      return null;
    // An earlier request whose link expired or never went out: replaced, so the new link is the only one.
    await tx.follow.deleteMany({ where: { task_id: taskId, mailbox, confirmed_at: null } });
    return tx.follow.create({ data: { task_id: taskId, email, mailbox, confirmation_sent_at: new Date(now) } });
  });
}

/**
 * A follow by email: the same answer whether or not the address already follows, and whether or not a mail went out
 * (no enumeration, no signal for whoever probes the caps).
 */
export async function followByEmail(taskId: string, rawEmail: string) {
  const task = await publicWatch(taskId);
  const email = rawEmail.trim().toLowerCase();
  const follow = await claimConfirmation(taskId, email, mailboxOf(email));
  if (!follow) return { message: CHECK_INBOX };
  const sent = await sendRecorded(
    {
      user_id: null,
      audience: `follow:${follow.id}`,
      task_id: taskId,
      execution_id: null,
      event: "follow.confirmation",
      recipient: email,
    },
    async () => ({
      subject: "Confirm your follow on Watch",
      react: ConfirmFollow({
        confirmUrl: await followConfirmUrl(follow.id),
        watchName: quoted(task.name),
        watchUrl: watchUrl(task),
      }),
    }),
  );
  // Not sent (a cap, the provider): a later request may try again.
  if (sent.status !== "sent")
    await db.follow.updateMany({ where: { id: follow.id, confirmed_at: null }, data: { confirmation_sent_at: null } });
  return { message: CHECK_INBOX };
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
