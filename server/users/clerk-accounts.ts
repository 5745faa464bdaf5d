/**
 * Accounts follow Clerk. A user's email, first name, role (`public_metadata.role`) and whether they may use the
 * service (not banned) are copied from Clerk: when the dashboard first syncs the account, again once per new session
 * (a sign-in), and at once when Clerk reports a change through its webhooks (user.updated, user.deleted). An inactive
 * or deleted account's API key and sessions stop working on the next request (server/auth reads is_active).
 *
 * Webhooks arrive at least once and in no particular order (Svix retries for days): each delivery is applied once
 * (by its `svix-id`, remembered for 30 days: server/retention.ts), and a profile older than the one applied (Clerk's
 * `updated_at`) is ignored, so a late "not banned" cannot undo a ban.
 */
import type { WebhookEvent } from "@clerk/backend/webhooks";
import type { Caller } from "../auth/caller";
import { prismaQuery } from "../db/sql";
import { fetchClerkProfile, profileFromUserJson, type ClerkProfile } from "../auth/clerk";
import { db, Prisma, type User } from "../db";
import { isDomainError } from "../errors";
import { scheduler } from "../scheduler";
import { recountSubscribers } from "../follows/subscribers";
import { userView } from "./service";
import { log } from "../observability/log.mjs";
import { forgetOnStop } from "../start-state";

/** Creates or refreshes the caller's record from the identity provider (POST /auth/sync-user). */
export async function syncUser(caller: Exclude<Caller, { method: "api_key" }>) {
  if (caller.method === "noauth") return { user: userView(caller.user), created: false };
  const profile = await fetchClerkProfile(caller.clerkUserId);
  const existing = await db.user.findUnique({ where: { clerk_user_id: caller.clerkUserId } });
  const data = { ...profile, clerk_session_id: caller.sessionId };
  const user = existing
    ? await applyProfile(existing, data)
    : await db.user.create({ data: { clerk_user_id: caller.clerkUserId, ...data } }).catch(async (e: unknown) => {
        // Two first loads at once: the other request created it.
        if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002")
          return db.user.findUniqueOrThrow({ where: { clerk_user_id: caller.clerkUserId } });
        throw e;
      });
  return { user: userView(user), created: !existing };
}

const refreshing = new Map<string, Promise<User>>();
/** Sessions whose refresh failed recently (Clerk unreachable): not retried on every request. */
const failedRecently = new Map<string, number>();
const RETRY_FAILED_AFTER_MS = 60_000;
forgetOnStop(() => {
  refreshing.clear();
  failedRecently.clear();
});

/**
 * The account of a verified session token, its profile re-read from Clerk the first time this session is seen (once,
 * for all concurrent requests). When Clerk cannot be reached the stored profile serves, and the refresh is retried
 * a minute later.
 */
export async function sessionUser(clerkUserId: string, sessionId: string | null): Promise<User | null> {
  const user = await db.user.findUnique({ where: { clerk_user_id: clerkUserId } });
  if (!user || !sessionId || user.clerk_session_id === sessionId) return user;
  if ((failedRecently.get(sessionId) ?? 0) > Date.now()) return user;
  let refresh = refreshing.get(sessionId);
  if (!refresh) {
    refresh = fetchClerkProfile(clerkUserId)
      .then((profile) => applyProfile(user, { ...profile, clerk_session_id: sessionId }))
      .catch(async (e: unknown) => {
        if (isDomainError(e, "not_found")) return applyProfile(user, { is_active: false, clerk_session_id: sessionId });
        log.error({ err: e }, `clerk: refreshing user ${user.id} failed; the stored profile serves for now`);
        failedRecently.set(sessionId, Date.now() + RETRY_FAILED_AFTER_MS);
        return user;
      })
      .finally(() => refreshing.delete(sessionId));
    refreshing.set(sessionId, refresh);
  }
  return refresh;
}

/** Writes a profile; an account that becomes inactive has its active watches paused (their wake-ups cancelled). */
async function applyProfile(
  user: User,
  data: Partial<ClerkProfile> & { clerk_session_id?: string | null },
): Promise<User> {
  const updated = await db.user.update({ where: { id: user.id }, data: { ...data, updated_at: new Date() } });
  if (user.is_active && !updated.is_active) await pauseAllWatches(user.id);
  return updated;
}

/** A webhook's profile, unless the account already has this version of it or a newer one. */
async function applyNewerProfile(user: User, profile: ClerkProfile): Promise<"updated" | "stale"> {
  const at = profile.clerk_updated_at;
  if (!at) return applyProfile(user, profile).then(() => "updated");
  const { count } = await db.user.updateMany({
    where: { id: user.id, OR: [{ clerk_updated_at: null }, { clerk_updated_at: { lt: at } }] },
    data: { ...profile, updated_at: new Date() },
  });
  if (!count) return "stale";
  if (user.is_active && !profile.is_active) await pauseAllWatches(user.id);
  return "updated";
}

async function pauseAllWatches(userId: string) {
  const active = await db.task.findMany({
    where: { user_id: userId, state: "active" },
    select: { id: true, next_run: true },
  });
  await db.task.updateMany({
    where: { id: { in: active.map((t) => t.id) } },
    data: { state: "paused", state_changed_at: new Date(), next_run: null },
  });
  for (const t of active) await scheduler().disarm(t.id, t.next_run);
}

/**
 * Clerk's webhooks (POST /api/webhooks/clerk, signature already verified), `deliveryId` their `svix-id`. Users Watch
 * has never seen are ignored. A delivery that fails is forgotten again, so Svix's retry applies it.
 */
export async function applyClerkEvent(event: WebhookEvent, deliveryId: string | null) {
  if (event.type !== "user.updated" && event.type !== "user.deleted") return "ignored";
  if (deliveryId) {
    const { count } = await db.clerkWebhookEvent.createMany({ data: [{ svix_id: deliveryId }], skipDuplicates: true });
    if (!count) return "duplicate";
  }
  try {
    return await applyUserEvent(event as UserEvent);
  } catch (e) {
    if (deliveryId) await db.clerkWebhookEvent.deleteMany({ where: { svix_id: deliveryId } });
    throw e;
  }
}

type UserEvent = Extract<WebhookEvent, { data: { object: "user" } }>;

async function applyUserEvent(event: UserEvent) {
  const clerkUserId = event.data.id;
  const user = clerkUserId ? await db.user.findUnique({ where: { clerk_user_id: clerkUserId } }) : null;
  if (!user) return "unknown user";
  if (event.type === "user.updated") return applyNewerProfile(user, profileFromUserJson(event.data));
  // Deleted at Clerk: the account and everything it owns go (its send history with it), and the watches it followed
  // or had forked count one subscriber fewer.
  await pauseAllWatches(user.id);
  await db.$transaction(async (tx) => {
    const forks = await tx.task.findMany({
      where: { user_id: user.id, forked_from_task_id: { not: null } },
      select: { forked_from_task_id: true },
    });
    const follows = await tx.follow.findMany({ where: { user_id: user.id }, select: { task_id: true } });
    await tx.user.delete({ where: { id: user.id } });
    await recountSubscribers(prismaQuery(tx), [
      ...forks.map((f) => f.forked_from_task_id),
      ...follows.map((f) => f.task_id),
    ]);
  });
  return "deleted";
}
