/**
 * Following a public watch without forking it: by email (double opt-in, no account) or signed in with one's own
 * channels. A follower gets the watch's findings and retractions; the owner sees only how many follow.
 * `subscriber_count` counts confirmed follows, plus forks by other users (the API's documented meaning): each follow
 * adds one when it is confirmed and takes it back when it ends, in the same transaction. A watch made private or
 * deleted loses its follows.
 */
import { DomainError, notFound } from "../errors";
import { db, Prisma, type User } from "../db";
import { ConfirmFollow } from "../../emails/watch-notification";
import { sendRecorded } from "../notify/email";
import { followConfirmUrl, readToken, watchUrl } from "../notify/links";
import { parseNotifications } from "../tasks/notifications";
import { findTasks } from "../tasks/reads";
import { publicTaskView } from "../tasks/views";
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

const countFollowers = (tx: Prisma.TransactionClient, taskId: string, by: number) =>
  tx.task.update({ where: { id: taskId }, data: { subscriber_count: { increment: by } }, select: { id: true } });

/**
 * A follow by email: the same answer whether or not the address already follows (no enumeration). A new or still
 * unconfirmed follow gets a confirmation email (a recorded send, counted against the recipient's cap).
 */
export async function followByEmail(taskId: string, rawEmail: string) {
  const task = await publicWatch(taskId);
  const email = rawEmail.trim().toLowerCase();
  const follow = await db.follow.upsert({
    where: { task_id_email: { task_id: taskId, email } },
    create: { task_id: taskId, email },
    update: {},
  });
  if (!follow.confirmed_at) {
    await sendRecorded(
      {
        user_id: null,
        audience: `follow:${follow.id}`,
        task_id: taskId,
        execution_id: null,
        event: "follow.confirmation",
        recipient: email,
      },
      async () => ({
        subject: `Confirm: follow “${task.name}” on Watch`,
        react: ConfirmFollow({
          confirmUrl: await followConfirmUrl(follow.id),
          watchName: task.name,
          watchUrl: watchUrl(task),
        }),
      }),
    );
  }
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
      const { count } = await tx.follow.updateMany({
        where: { id: follow.id, confirmed_at: null },
        data: { confirmed_at: new Date() },
      });
      await countFollowers(tx, follow.task_id, count);
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
    const { count } = await tx.follow.deleteMany({ where: { task_id: taskId, confirmed_at: { not: null }, ...where } });
    await tx.follow.deleteMany({ where: { task_id: taskId, ...where } });
    await countFollowers(tx, taskId, -count);
  });
}

const followView = (f: { task_id: string; notifications: Prisma.JsonValue; created_at: Date }) => ({
  task_id: f.task_id,
  notifications: f.notifications as NotificationConfig[],
  created_at: f.created_at.toISOString(),
});

/** Follow (or change the channels of a follow) as a signed-in user: `created` tells 201 from 200. */
export async function followAsUser(user: User, taskId: string, notifications: unknown[]) {
  const task = await publicWatch(taskId);
  if (task.user_id === user.id) throw new DomainError("invalid", "You own this task");
  const configs = parseNotifications(notifications) as Prisma.InputJsonValue;
  const existing = await db.follow.findUnique({ where: { task_id_user_id: { task_id: taskId, user_id: user.id } } });
  const follow = await db.$transaction(async (tx) => {
    const saved = existing
      ? await tx.follow.update({ where: { id: existing.id }, data: { notifications: configs, updated_at: new Date() } })
      : await tx.follow.create({
          data: { task_id: taskId, user_id: user.id, notifications: configs, confirmed_at: new Date() },
        });
    if (!existing) await countFollowers(tx, taskId, 1);
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
  const tasks = new Map((await findTasks({ ids: follows.map((f) => f.task_id) })).map((t) => [t.id, t]));
  return follows.flatMap((f) => {
    const task = tasks.get(f.task_id);
    return task ? [{ task: publicTaskView(task), ...followView(f) }] : [];
  });
}

/** A watch made private stops all its follows. */
export async function endAllFollows(tx: Prisma.TransactionClient, taskId: string) {
  const { count } = await tx.follow.deleteMany({ where: { task_id: taskId, confirmed_at: { not: null } } });
  await tx.follow.deleteMany({ where: { task_id: taskId } });
  await countFollowers(tx, taskId, -count);
}

/** Whether `user` follows the watch (its public page shows Follow or Unfollow). */
export async function isFollowing(user: User, taskId: string) {
  return (await db.follow.count({ where: { task_id: taskId, user_id: user.id } })) > 0;
}
