/**
 * Who is calling: an API key, a Clerk session token (Authorization header, or the `__session` cookie on the
 * dashboard's own tRPC endpoint), or, with SERVICE_NOAUTH=1, an unauthenticated loopback client acting as
 * the development test user.
 */
import { env } from "../env";
import { DomainError } from "../errors";
import { db } from "../db";
import { looksLikeApiKey, verifyApiKey } from "./api-keys";
import { verifySessionToken } from "./clerk";
import { sessionUser } from "../users/clerk-accounts";
import { isLoopbackAddress } from "../net/client-address.mjs";
import type { Caller } from "./caller";

export type { Caller };

export const ACCOUNT_DISABLED = "Account disabled";

export const NOAUTH_USER = {
  id: "00000000-0000-0000-0000-000000000001",
  clerk_user_id: "user_noauth",
  email: "test@localhost",
  first_name: "Test",
  role: "admin",
} as const;

function bearerToken(headers: Headers, allowCookie: boolean): string | null {
  const header = headers.get("authorization");
  if (header !== null) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match) throw new DomainError("unauthorized", "Invalid authorization header: expected 'Bearer <token>'");
    return match[1]!.trim();
  }
  if (!allowCookie) return null;
  const cookie = headers.get("cookie");
  const session = cookie && /(?:^|;\s*)__session=([^;]+)/.exec(cookie);
  return session ? decodeURIComponent(session[1]!) : null;
}

async function noauthUser() {
  // A read on every request; the write only the first time.
  const existing = await db.user.findUnique({ where: { id: NOAUTH_USER.id } });
  return existing ?? db.user.upsert({ where: { id: NOAUTH_USER.id }, update: {}, create: { ...NOAUTH_USER } });
}

export async function authenticate(headers: Headers, clientIp: string | null, allowCookie = false): Promise<Caller> {
  const token = bearerToken(headers, allowCookie);
  if (token === null) {
    // `clientIp` is the socket's address as the front recorded it (scripts/front.mjs), which also refuses, in
    // this mode, foreign Host names and cross-site browser writes before any route runs.
    if (env.SERVICE_NOAUTH && isLoopbackAddress(clientIp)) return { method: "noauth", user: await noauthUser() };
    throw new DomainError("unauthorized", "Authorization header missing");
  }
  if (looksLikeApiKey(token)) {
    const user = await verifyApiKey(token, clientIp ?? "unknown");
    if (!user) throw new DomainError("unauthorized", "Invalid API key");
    return { method: "api_key", user };
  }
  if (token.split(".").length !== 3) throw new DomainError("unauthorized", "Invalid API key");
  const { userId: clerkUserId, sessionId } = await verifySessionToken(token);
  const user = await sessionUser(clerkUserId, sessionId);
  if (user && !user.is_active) throw new DomainError("forbidden", ACCOUNT_DISABLED);
  return { method: "jwt", clerkUserId, sessionId, user };
}
