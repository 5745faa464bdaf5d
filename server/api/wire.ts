/**
 * An operation's wire facts, declared once in its procedure's meta: who may call it, its success status, its rate
 * limit, its path and query parameters. Two readers: the middleware at the end of every procedure ladder
 * (server/api/trpc.ts), which applies the limits and the status for every transport (REST, the dashboard's tRPC, MCP),
 * and the OpenAPI document (server/api/openapi.ts), which documents them. Route handlers outside tRPC (the feeds and
 * the badge) declare the same facts (server/http/endpoints.ts).
 *
 *   authedProcedure.meta({ openapi: { method: "POST", path: "/api/v1/tasks/{id}/follow", … }, successStatus: 201 })
 */
import type { OpenApiMeta } from "trpc-to-openapi";
import type { Bucket } from "../ratelimit";

/**
 * Who may call: anyone; any credential of a synced user; a dashboard session only (API keys refused); an admin.
 * Set by the procedure ladder (publicProcedure, authedProcedure, sessionProcedure, adminProcedure), never by hand.
 */
export type Access = "public" | "user" | "session" | "admin";

export type WireMeta = {
  access?: Access;
  /** The status of success when it is not 200: 201 created, 202 accepted, 204 no content (no body). */
  successStatus?: 201 | 202 | 204;
  /** Other statuses the handler answers with the same body, and when; it picks one by setting `ctx.res.status`. */
  alsoAnswers?: Partial<Record<200 | 503, string>>;
  /** The operation's own rate-limit bucket; every authenticated write also counts against "user-write". */
  rateLimit?: Bucket;
  /** A conditional GET: an ETag on the answer, and 304 without a body to a matching `If-None-Match`. */
  conditional?: boolean;
  /** Input fields a body request takes from its query string (`POST …/execute?force=true`). */
  query?: readonly string[];
};

export type Meta = OpenApiMeta<WireMeta>;

/** What the procedure ladder answers a caller whose access it refuses (a 401 aside); the OpenAPI document says the same. */
export const REFUSED = {
  notSynced: "User not found. Sign in to the dashboard (POST /auth/sync-user) first.",
  sessionOnly: "This endpoint requires a signed-in dashboard session",
  adminOnly: "Admins only",
} as const;
export type CallType = "query" | "mutation";

/** The buckets one call counts against, in order: the per-user write limit for authenticated writes, then its own. */
export function bucketsOf(meta: WireMeta | undefined, type: CallType): Bucket[] {
  const own: Bucket[] = meta?.rateLimit ? [meta.rateLimit] : [];
  const authenticated = meta?.access !== undefined && meta.access !== "public";
  return authenticated && type === "mutation" ? ["user-write", ...own] : own;
}

/** The names of a path template's parameters: `/api/v1/tasks/{id}/follow` → `["id"]`. */
export const pathParameters = (path: string | undefined): string[] =>
  path ? [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!) : [];

export const successStatusOf = (meta: WireMeta | undefined): number => meta?.successStatus ?? 200;

/** Whether the operation declares `status` as one of its successful answers. */
export function declaresStatus(meta: WireMeta | undefined, status: number): boolean {
  return (
    status === successStatusOf(meta) ||
    (meta?.alsoAnswers !== undefined && status in meta.alsoAnswers) ||
    (status === 304 && meta?.conditional === true)
  );
}
