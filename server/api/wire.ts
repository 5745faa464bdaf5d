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
  /**
   * The operation's own rate-limit bucket, on top of the per-account one of every authenticated operation
   * ("user-read" or "user-write"); an operation without credentials and without a bucket of its own counts against
   * "public".
   */
  rateLimit?: Bucket;
  /**
   * An operations endpoint (the health check): not rate limited, because monitors poll it; the API's document gives
   * its answer as the operation's `default`, without rate-limit headers.
   */
  operational?: true;
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

const authenticated = (meta: WireMeta | undefined) => meta?.access !== undefined && meta.access !== "public";

/** The per-account bucket an authenticated call counts against as soon as its caller is known: its reads or writes. */
export const accountBucket = (meta: WireMeta | undefined, type: CallType): Bucket | undefined =>
  authenticated(meta) ? (type === "mutation" ? "user-write" : "user-read") : undefined;

/** The buckets a call counts against once its caller is allowed: its own, or "public" for one without credentials. */
export function ownBuckets(meta: WireMeta | undefined): Bucket[] {
  if (meta?.operational) return [];
  if (meta?.rateLimit) return [meta.rateLimit];
  return authenticated(meta) ? [] : ["public"];
}

/** Every bucket one call counts against, in order. */
export function bucketsOf(meta: WireMeta | undefined, type: CallType): Bucket[] {
  const account = accountBucket(meta, type);
  return [...(account ? [account] : []), ...ownBuckets(meta)];
}

/** The paths a path template matches: `/api/v1/tasks/{id}` → /^\/api\/v1\/tasks\/[^/]+$/. */
export const pathPattern = (template: string) =>
  new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`);

type ZodLike = {
  _zod: { def: { type: string; shape?: Record<string, ZodLike> } };
  safeParse(v: unknown): { success: boolean; data?: unknown };
};

/**
 * The list reads among `procedures` (those answering an array with `limit` and `offset`), from their own schemas: the
 * `limit` they take, and whether leaving it out asks for every item.
 */
export function listReads(procedures: object) {
  return Object.entries(procedures).flatMap(([name, procedure]) => {
    const def = (procedure as { _def: { meta?: Meta; inputs: ZodLike[]; output?: ZodLike } })._def;
    const shape = def.inputs[0]?._zod.def.shape;
    if (def.output?._zod.def.type !== "array" || !shape?.limit || !shape.offset) return [];
    const o = def.meta?.openapi;
    return [
      {
        name,
        method: o?.method,
        path: o ? pathPattern(o.path) : undefined,
        limit: shape.limit,
        unpaged: shape.limit.safeParse(undefined).data === undefined,
      },
    ];
  });
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
