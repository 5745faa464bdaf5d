/**
 * Clerk: session JWTs are verified locally (networkless with CLERK_JWT_KEY, else against Clerk's JWKS), and
 * the user's profile comes from the Clerk Backend API (CLERK_API_URL) when the dashboard syncs the account.
 */
import { createClerkClient, verifyToken } from "@clerk/backend";
import { env } from "../env";
import { DomainError, isDomainError } from "../errors";
import { log } from "../observability/log.mjs";
import { forgetOnStop } from "../start-state";

export const clerkConfigured = () => !!env.CLERK_SECRET_KEY;

const notInitialized = () => new DomainError("unavailable", "Clerk client not initialized");

const g = globalThis as unknown as { __watchClerk?: ReturnType<typeof createClerkClient> };
forgetOnStop(() => (g.__watchClerk = undefined));

function clerkClient() {
  if (!env.CLERK_SECRET_KEY) throw notInitialized();
  return (g.__watchClerk ??= createClerkClient({
    secretKey: env.CLERK_SECRET_KEY,
    jwtKey: env.CLERK_JWT_KEY,
    apiUrl: env.CLERK_API_URL,
    publishableKey: env.CLERK_PUBLISHABLE_KEY ?? env.NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY,
  }));
}

/** Session tokens are accepted only when issued for these origins (`azp`): CLERK_AUTHORIZED_PARTIES, else APP_URL's. */
const authorizedParties = () =>
  env.CLERK_AUTHORIZED_PARTIES
    ? env.CLERK_AUTHORIZED_PARTIES.split(",").map((s) => s.trim())
    : [new URL(env.APP_URL).origin];

/** The Clerk user (`sub`) and session (`sid`) of a valid session token; 401 for expired or invalid tokens. */
export async function verifySessionToken(token: string): Promise<{ userId: string; sessionId: string | null }> {
  if (!env.CLERK_SECRET_KEY) throw notInitialized();
  try {
    const claims = await verifyToken(token, {
      secretKey: env.CLERK_SECRET_KEY,
      jwtKey: env.CLERK_JWT_KEY,
      apiUrl: env.CLERK_API_URL,
      authorizedParties: authorizedParties(),
    });
    if (!claims.sub) throw new DomainError("unauthorized", "Invalid token");
    return { userId: claims.sub, sessionId: typeof claims.sid === "string" ? claims.sid : null };
  } catch (e) {
    const reason = (e as { reason?: string }).reason;
    if (reason === "token-expired") throw new DomainError("unauthorized", "Token has expired");
    if (reason === "jwk-remote-failed-to-load" || reason === "jwk-failed-to-resolve")
      throw new DomainError("unavailable", "Identity provider unavailable");
    throw new DomainError("unauthorized", "Invalid token");
  }
}

/**
 * What the account mirrors of the Clerk user: a banned user is inactive (no session, no API key). `clerk_updated_at`
 * is the version it was read at (Clerk's `updated_at`), when known: an older one never overwrites a newer one.
 */
export type ClerkProfile = {
  email: string;
  first_name: string;
  role: string | null;
  is_active: boolean;
  clerk_updated_at?: Date;
};

const roleOf = (metadata: unknown) => {
  const role = (metadata as { role?: unknown } | null | undefined)?.role;
  return typeof role === "string" ? role : null;
};

/** The profile in a Clerk user as its webhooks send it (the Backend API's JSON, snake_case). */
export function profileFromUserJson(u: {
  email_addresses?: { id: string; email_address: string }[];
  primary_email_address_id?: string | null;
  first_name?: string | null;
  public_metadata?: unknown;
  banned?: boolean;
  updated_at?: number;
}): ClerkProfile {
  const emails = u.email_addresses ?? [];
  const primary = emails.find((e) => e.id === u.primary_email_address_id) ?? emails[0];
  return {
    email: primary?.email_address ?? "",
    first_name: u.first_name ?? "",
    role: roleOf(u.public_metadata),
    is_active: !u.banned,
    ...(typeof u.updated_at === "number" ? { clerk_updated_at: new Date(u.updated_at) } : {}),
  };
}

export async function fetchClerkProfile(clerkUserId: string): Promise<ClerkProfile> {
  try {
    const u = await clerkClient().users.getUser(clerkUserId);
    const primary = u.emailAddresses.find((e) => e.id === u.primaryEmailAddressId) ?? u.emailAddresses[0];
    return {
      email: primary?.emailAddress ?? "",
      first_name: u.firstName ?? "",
      role: roleOf(u.publicMetadata),
      is_active: !u.banned,
      ...(typeof u.updatedAt === "number" ? { clerk_updated_at: new Date(u.updatedAt) } : {}),
    };
  } catch (e) {
    if ((e as { status?: number }).status === 404)
      throw new DomainError("not_found", "User not found at the identity provider");
    if (isDomainError(e)) throw e; // the client not initialized
    log.error({ err: e }, "clerk backend api failed");
    throw new DomainError("unavailable", "Identity provider unavailable");
  }
}
