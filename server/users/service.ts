/** Accounts: sync from Clerk, profile, welcome flag, usernames (set once) and the webhook signing secret. */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { SettingsSchema, settingsView } from "./settings";
import { DomainError } from "../errors";
import { db, Prisma, type User } from "../db";

export const UserSchema = z
  .object({
    id: z.guid(),
    clerk_user_id: z.string(),
    email: z.string(),
    first_name: z.string(),
    username: z.string().nullable(),
    is_active: z.boolean(),
    has_seen_welcome: z.boolean(),
    created_at: z.iso.datetime({ offset: true }),
    settings: SettingsSchema,
  })
  .meta({ id: "User" });

export function userView(u: User): z.infer<typeof UserSchema> {
  return {
    id: u.id,
    clerk_user_id: u.clerk_user_id,
    email: u.email,
    first_name: u.first_name,
    username: u.username,
    is_active: u.is_active,
    has_seen_welcome: u.has_seen_welcome,
    created_at: u.created_at.toISOString(),
    settings: settingsView(u),
  };
}

export async function markWelcomeSeen(user: User) {
  await db.user.update({ where: { id: user.id }, data: { has_seen_welcome: true } });
  return { status: "success" as const };
}

const RESERVED = new Set(
  "admin administrator api app auth dashboard docs explore help login logout me new null public root settings signin sign-in signup sign-up static support system task tasks u undefined user users w watch watches www".split(
    " ",
  ),
);
const USERNAME = /^[a-z][a-z0-9_-]{2,29}$/;

/** Why a username cannot be used, or null when it is well-formed. */
export function usernameProblem(raw: string): string | null {
  const name = raw.trim().toLowerCase();
  if (name.length < 3 || name.length > 30) return "must be 3 to 30 characters long";
  if (!/^[a-z]/.test(name)) return "must start with a letter";
  if (!USERNAME.test(name)) return "may only contain letters, digits, '_' and '-'";
  if (RESERVED.has(name)) return "is reserved";
  return null;
}

export async function usernameAvailability(raw: string) {
  const problem = usernameProblem(raw);
  if (problem) return { available: false, reason: `Username ${problem}` };
  const taken = await db.user.findUnique({ where: { username: raw.trim().toLowerCase() }, select: { id: true } });
  return taken ? { available: false, reason: "Username already taken" } : { available: true, reason: null };
}

export async function setUsername(user: User, raw: string) {
  const name = raw.trim().toLowerCase();
  if (user.username) {
    if (user.username === name) return userView(user);
    throw new DomainError(
      "invalid",
      "Username cannot be changed once set. This protects your public task URLs from breaking.",
    );
  }
  const problem = usernameProblem(name);
  if (problem) throw new DomainError("invalid", `Invalid username: ${problem}`);
  try {
    // Conditional update: a concurrent request that set a username first wins.
    const { count } = await db.user.updateMany({
      where: { id: user.id, username: null },
      data: { username: name, updated_at: new Date() },
    });
    if (!count)
      throw new DomainError(
        "invalid",
        "Username cannot be changed once set. This protects your public task URLs from breaking.",
      );
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002")
      throw new DomainError("conflict", "Username already taken");
    throw e;
  }
  return userView(await db.user.findUniqueOrThrow({ where: { id: user.id } }));
}

const newWebhookSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

type Secrets = Pick<User, "webhook_secret" | "previous_webhook_secret" | "previous_webhook_secret_expires_at">;

const stillSigning = (u: Secrets, now = Date.now()) =>
  u.previous_webhook_secret &&
  u.previous_webhook_secret_expires_at &&
  u.previous_webhook_secret_expires_at.getTime() > now
    ? { secret: u.previous_webhook_secret, expires_at: u.previous_webhook_secret_expires_at }
    : null;

/** The user's signing secret (created on first use) and when the one before the last rotation stops signing. */
export async function webhookSecret(user: User) {
  let u: Secrets = user;
  if (!u.webhook_secret) {
    await db.user.updateMany({
      where: { id: user.id, webhook_secret: null },
      data: { webhook_secret: newWebhookSecret() },
    });
    u = await db.user.findUniqueOrThrow({ where: { id: user.id } });
  }
  return { secret: u.webhook_secret!, previous_expires_at: stillSigning(u)?.expires_at.toISOString() ?? null };
}

/** Every secret a delivery is signed with: the current one, and during a rotation's overlap the previous one. */
export async function signingSecrets(user: User): Promise<string[]> {
  const { secret } = await webhookSecret(user);
  const previous = stillSigning(user);
  return previous ? [secret, previous.secret] : [secret];
}

/** A new secret; the old one keeps signing beside it for `overlapHours` so receivers can switch without a gap. */
export async function rotateWebhookSecret(user: User, overlapHours: number) {
  const current = await db.user.findUniqueOrThrow({ where: { id: user.id }, select: { webhook_secret: true } });
  const expires = current.webhook_secret && overlapHours > 0 ? new Date(Date.now() + overlapHours * 3_600_000) : null;
  const updated = await db.user.update({
    where: { id: user.id },
    data: {
      webhook_secret: newWebhookSecret(),
      previous_webhook_secret: expires ? current.webhook_secret : null,
      previous_webhook_secret_expires_at: expires,
    },
  });
  return { secret: updated.webhook_secret!, previous_expires_at: expires?.toISOString() ?? null };
}
