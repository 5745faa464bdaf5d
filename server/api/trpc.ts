/**
 * tRPC for both the dashboard (/api/trpc) and the REST API (trpc-to-openapi at /api/v1 and /auth).
 *  1. Context: request headers and the client address, plus what a procedure wants to say about the response.
 *  2. Initialisation: errors are formatted into the spec's `{detail}` bodies.
 *  3. Procedures: public -> authed (any credential, synced user) and the JWT-only procedure of /auth/sync-user.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { z } from "zod";
import { authenticate, type Caller } from "../auth";
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE, isDatabaseUnavailable } from "../db/availability";
import { rateLimitedError, takeToken, type Bucket } from "../ratelimit";
import { DomainError } from "../errors";
import { EXPOSED, isZodError, toTRPCError, validationDetails, type Location } from "./errors";

// 1. Context
export type ResponseMeta = { status?: number; headers: Record<string, string> };
export type Context = {
  headers: Headers;
  clientIp: string | null;
  /** "rest" when called through the OpenAPI adapter (errors name body/query/path locations). */
  via: "rest" | "trpc" | "server";
  httpMethod: string;
  requestId: string;
  /** REST: names of input fields that came from the query string of a body request. */
  queryKeys?: Set<string>;
  res: ResponseMeta;
};

export function createContext(opts: { headers: Headers; via: Context["via"]; httpMethod?: string }): Context {
  return {
    headers: opts.headers,
    clientIp: opts.headers.get("x-watch-client-ip"),
    via: opts.via,
    httpMethod: opts.httpMethod ?? "POST",
    requestId: opts.headers.get("x-request-id") ?? crypto.randomUUID(),
    res: { headers: {} },
  };
}

// 2. Initialisation
function locate(ctx: Context | undefined) {
  return (field: string | undefined): Location => {
    if (field === "id") return "path";
    if (field && ctx?.queryKeys?.has(field)) return "query";
    return ctx && (ctx.httpMethod === "GET" || ctx.httpMethod === "DELETE") ? "query" : "body";
  };
}

const t = initTRPC
  .context<Context>()
  .meta<OpenApiMeta>()
  .create({
    errorFormatter({ shape, error, input, ctx }) {
      let detail: unknown;
      if (error.code === "BAD_REQUEST" && isZodError(error.cause))
        detail = validationDetails(error.cause.issues, input, locate(ctx));
      else if (error.code === "INTERNAL_SERVER_ERROR" && !(EXPOSED in error)) detail = "Internal Server Error";
      else detail = error.message;
      return { ...shape, detail };
    },
  });

/**
 * tRPC validates a zod schema with `parseAsync`, which skips zod's compiled fast path: checking a list of 50
 * watches costs 113 µs instead of 32 µs with `parse` (docs/benchmarks.md). No response schema here has async
 * checks, so every `.output()` goes through this, which makes the schema's parseAsync the synchronous parse.
 */
export function syncParsed<T extends z.ZodType>(schema: T): T {
  schema.parseAsync = async (data, params) => schema.parse(data, params);
  return schema;
}

// 3. Procedures
export const router = t.router;

/**
 * The base of every procedure, for both transports (REST and the dashboard's /api/trpc): a DomainError becomes its
 * answer (status, message, headers); a database that cannot be reached is a 503 with Retry-After, which clients
 * retry; a domain validation failure is the 422 list; anything else unexpected is logged with the request's id and
 * answered "Internal Server Error".
 */
const pipeline = t.middleware(async ({ ctx, next, path }) => {
  const result = await next();
  if (result.ok || EXPOSED in result.error) return result;
  const cause = result.error.cause;
  if (cause instanceof DomainError) {
    Object.assign(ctx.res.headers, cause.headers);
    throw toTRPCError(cause);
  }
  if (result.error.code !== "INTERNAL_SERVER_ERROR") return result;
  if (isZodError(cause)) throw new TRPCError({ code: "BAD_REQUEST", message: cause.message, cause });
  if (isDatabaseUnavailable(cause)) {
    console.error(
      `[request ${ctx.requestId}] database unavailable: ${cause instanceof Error ? cause.message.trim() : String(cause)}`,
    );
    ctx.res.headers["retry-after"] = String(DATABASE_RETRY_AFTER_SECONDS);
    throw toTRPCError(new DomainError("unavailable", DATABASE_UNAVAILABLE));
  }
  console.error(`[request ${ctx.requestId}] ${path} failed:`, cause ?? result.error);
  return result;
});

export const publicProcedure = t.procedure.use(pipeline);

const withCaller = t.middleware(async ({ ctx, next }) => {
  const caller: Caller = await authenticate(ctx.headers, ctx.clientIp, ctx.via !== "rest");
  return next({ ctx: { caller } });
});

/** Counts the request against a rate-limit bucket, keyed by client IP or by the signed-in user. */
async function limit(ctx: Context, bucket: Bucket, key: string) {
  const verdict = await takeToken(bucket, key);
  Object.assign(ctx.res.headers, verdict.headers);
  if (!verdict.ok) throw rateLimitedError(verdict);
}

export const ipRateLimited = (bucket: Bucket) =>
  t.middleware(async ({ ctx, next }) => {
    await limit(ctx, bucket, ctx.clientIp ?? "unknown");
    return next();
  });

/** Any credential; the caller's user record must exist (a Clerk user syncs first via POST /auth/sync-user). */
export const authedProcedure = publicProcedure.use(withCaller).use(async ({ ctx, next, type }) => {
  const user = ctx.caller.user;
  if (!user)
    throw new DomainError("not_found", "User not found. Sign in to the dashboard (POST /auth/sync-user) first.");
  if (type === "mutation") await limit(ctx, "user-write", user.id);
  return next({ ctx: { user } });
});

/** A stricter per-user bucket on top of the write limit (API key creation). */
export const userRateLimited = (bucket: Bucket) =>
  t.middleware(async ({ ctx, next }) => {
    const user = (ctx as Context & { user?: { id: string } }).user;
    if (user) await limit(ctx, bucket, user.id);
    return next();
  });

/** Identity-provider session only (not API keys). */
export const sessionProcedure = publicProcedure.use(withCaller).use(({ ctx, next }) => {
  const caller = ctx.caller;
  if (caller.method === "api_key")
    throw new DomainError("forbidden", "This endpoint requires a signed-in dashboard session");
  return next({ ctx: { caller } });
});
