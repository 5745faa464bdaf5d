/** Who a request acts as: an API key's owner, the development user (SERVICE_NOAUTH), or a Clerk session's user. */
import type { User } from "../db";

export type Caller =
  | { method: "api_key"; user: User }
  | { method: "noauth"; user: User }
  | { method: "jwt"; clerkUserId: string; sessionId: string | null; user: User | null };
