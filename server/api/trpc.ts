/**
 * tRPC for both the dashboard (/api/trpc) and the REST API (trpc-to-openapi at /api/v1 and /auth).
 *  1. Context: request headers and the client address, plus what a procedure wants to say about the response.
 *  2. Initialisation: errors are formatted into the spec's `{detail}` bodies.
 *  3. Procedures: public -> authed (any credential, synced user) -> admin, and the session-only procedure of
 *     /auth/sync-user. Each ends with the middleware that applies the operation's wire facts (./wire.ts): its rate
 *     limits and its success status, whatever the transport.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import { authenticate, type Caller } from "../auth";
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE, isDatabaseUnavailable } from "../db/availability";
import { BUCKETS, countRefusal, rateLimitedError, takeToken, type Bucket } from "../ratelimit";
import { DomainError, validationError } from "../errors";
import { errorDetail, EXPOSED, isZodError, toTRPCError, type Location } from "./errors";
import {
  accountBucket,
  declaresStatus,
  listReads,
  ownBuckets,
  pathParameters,
  REFUSED,
  successStatusOf,
  type CallType,
  type Meta,
} from "./wire";
import { log } from "../observability/log.mjs";
import { setRoute } from "../observability/context.mjs";

// 1. Context
export type ResponseMeta = { status?: number; headers: Record<string, string> };
export type Context = {
  headers: Headers;
  clientIp: string | null;
  /**
   * "rest" when called through the OpenAPI adapter (errors name body/query/path locations); "trpc" (the dashboard)
   * and "server" (server components) may authenticate with the session cookie; "mcp" is an AI assistant's tool call.
   */
  via: "rest" | "trpc" | "server" | "mcp";
  httpMethod: string;
  requestId: string;
  /** REST: names of input fields that came from the query string of a body request. */
  queryKeys?: Set<string>;
  /** The called operation's path parameters (its meta's path template), which validation errors locate in `path`. */
  pathParams?: string[];
  /** Who is calling, when the transport has already authenticated the request (MCP, once per HTTP request). */
  authenticated?: Caller;
  /** A later page of a list the REST API sends a page at a time (./rest.ts): counted once, with the first. */
  continued?: boolean;
  res: ResponseMeta;
};

export function createContext(opts: {
  headers: Headers;
  via: Context["via"];
  httpMethod?: string;
  authenticated?: Caller;
  continued?: boolean;
}): Context {
  return {
    headers: opts.headers,
    authenticated: opts.authenticated,
    continued: opts.continued,
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
    if (field && ctx?.pathParams?.includes(field)) return "path";
    if (field && ctx?.queryKeys?.has(field)) return "query";
    return ctx && (ctx.httpMethod === "GET" || ctx.httpMethod === "DELETE") ? "query" : "body";
  };
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error, input, ctx }) {
      return { ...shape, detail: errorDetail(error, input, locate(ctx)) };
    },
  });

// 3. Procedures
export const router = t.router;

/** tRPC's message when a procedure's answer fails its `.output()` schema. */
const OUTPUT_INVALID = "Output validation failed";

/**
 * The base of every procedure, for both transports (REST and the dashboard's /api/trpc): a DomainError becomes its
 * answer (status, message, headers); a database that cannot be reached is a 503 with Retry-After, which clients
 * retry; a domain validation failure is the 422 list; anything else unexpected (an answer that fails its own output
 * schema included) is logged with the request's id and answered "Internal Server Error".
 */
const pipeline = t.middleware(async ({ ctx, meta, next, path }) => {
  ctx.pathParams = pathParameters(meta?.openapi?.path);
  // The route that metrics and traces label the request with: the operation's path template.
  if (ctx.via === "rest" && meta?.openapi?.path) setRoute(meta.openapi.path);
  else if (ctx.via === "trpc") setRoute(`/api/trpc/${path}`);
  const result = await next();
  if (result.ok || EXPOSED in result.error) return result;
  const cause = result.error.cause;
  if (cause instanceof DomainError) {
    Object.assign(ctx.res.headers, cause.headers);
    throw toTRPCError(cause);
  }
  if (result.error.code !== "INTERNAL_SERVER_ERROR") return result;
  // A domain validation failure is the client's; an answer that does not fit its own output schema (tRPC's wrapper
  // says so) is ours, an internal error like any other.
  if (isZodError(cause) && result.error.message !== OUTPUT_INVALID)
    throw new TRPCError({ code: "BAD_REQUEST", message: cause.message, cause });
  if (isDatabaseUnavailable(cause)) {
    log.error(`database unavailable: ${cause instanceof Error ? cause.message.trim() : String(cause)}`);
    ctx.res.headers["retry-after"] = String(DATABASE_RETRY_AFTER_SECONDS);
    throw toTRPCError(new DomainError("unavailable", DATABASE_UNAVAILABLE));
  }
  log.error({ err: cause ?? result.error, procedure: path }, `${path} failed`);
  return result;
});

const base = t.procedure.use(pipeline);

/**
 * Counts the request against a rate-limit bucket, keyed by client address or by the signed-in account. Of the buckets
 * a request counts against, its answer's headers are those of the one with the fewest requests left.
 */
async function limit(ctx: Context, bucket: Bucket, key: string) {
  if (ctx.continued) return;
  const verdict = await takeToken(bucket, key);
  const left = ctx.res.headers["X-RateLimit-Remaining"];
  if (!verdict.ok || left === undefined || Number(verdict.headers["X-RateLimit-Remaining"]) < Number(left))
    Object.assign(ctx.res.headers, verdict.headers);
  if (!verdict.ok) throw rateLimitedError(verdict);
}

/**
 * The most items one list call asks for over tRPC and MCP, whose answers are held whole until they are sent (a tRPC
 * batch's together); the REST API sends longer lists a page at a time (./rest.ts).
 */
export const MAX_ITEMS_HELD = 100;
export const PAGE_TOO_LONG = `Ask for a page of at most ${MAX_ITEMS_HELD} here (the REST API sends longer lists)`;

const lists = new Map<string, ReturnType<typeof listReads>[number]>();

/** The list reads of the app's router, known once it is built (./root, which imports this module, calls it). */
export function pageListsOf(procedures: object) {
  for (const l of listReads(procedures)) lists.set(l.name, l);
}

/** Over tRPC and MCP, a list call must ask for a page of at most MAX_ITEMS_HELD items. */
async function checkPage(ctx: Context, path: string, getRawInput: () => Promise<unknown>) {
  if (ctx.via !== "trpc" && ctx.via !== "mcp") return;
  const list = lists.get(path);
  if (!list) return;
  const input = (await getRawInput()) as { limit?: unknown } | undefined;
  const limit = input?.limit;
  if (limit === undefined ? list.unpaged : typeof limit === "number" && limit > MAX_ITEMS_HELD)
    throw validationError("limit", PAGE_TOO_LONG, input ?? {});
}

/**
 * The last step of every ladder: the operation's own rate limit (its meta's bucket, or the one of public operations)
 * and the page a list call may ask for before the handler, its success status after it. For every transport, so the
 * dashboard and MCP are limited as the REST API is. A handler picks one of the other statuses its meta declares
 * (`alsoAnswers`, 304 of a conditional GET) by setting `ctx.res.status`.
 */
const wire = t.middleware(async ({ ctx, meta, path, getRawInput, next }) => {
  const caller = (ctx as { caller?: Caller }).caller;
  const account = caller && accountOf(caller);
  for (const bucket of ownBuckets(meta))
    await limit(ctx, bucket, (BUCKETS[bucket].per === "user" && account) || (ctx.clientIp ?? "unknown"));
  await checkPage(ctx, path, getRawInput);
  const result = await next();
  if (result.ok) {
    if (ctx.res.status === undefined) ctx.res.status = successStatusOf(meta);
    else if (!declaresStatus(meta, ctx.res.status))
      log.error(`${path} answered ${ctx.res.status}, a status its meta does not declare`);
  }
  return result;
});

export const publicProcedure = base.meta({ access: "public" }).use(wire);

/** Whose count a caller's requests are: their account, or their identity before their account is made. */
const accountOf = (caller: Caller) => caller.user?.id ?? (caller as { clerkUserId?: string }).clerkUserId ?? "unknown";

/** Who is calling, counted at once: refused credentials against the client address, accepted ones per account. */
const withCaller = t.middleware(async ({ ctx, meta, type, next }) => {
  const cookie = ctx.via === "trpc" || ctx.via === "server";
  const caller: Caller =
    ctx.authenticated ??
    (await authenticate(ctx.headers, ctx.clientIp, cookie).catch((e: unknown) => countRefusal(e, ctx.clientIp)));
  const bucket = accountBucket(meta, type as CallType);
  if (bucket) await limit(ctx, bucket, accountOf(caller));
  return next({ ctx: { caller } });
});

const synced = withCaller.unstable_pipe(async ({ ctx, next }) => {
  const user = ctx.caller.user;
  if (!user) throw new DomainError("not_found", REFUSED.notSynced);
  return next({ ctx: { user } });
});

/** Any credential; the caller's user record must exist (a Clerk user syncs first via POST /auth/sync-user). */
export const authedProcedure = base.meta({ access: "user" }).use(synced).use(wire);

/** A signed-in admin (role `admin`), with any credential. */
export const adminProcedure = base
  .meta({ access: "admin" })
  .use(synced)
  .use(({ ctx, next }) => {
    if (ctx.user.role !== "admin") throw new DomainError("forbidden", REFUSED.adminOnly);
    return next();
  })
  .use(wire);

/** Identity-provider session only (not API keys). */
export const sessionProcedure = base
  .meta({ access: "session" })
  .use(withCaller)
  .use(({ ctx, next }) => {
    const caller = ctx.caller;
    if (caller.method === "api_key") throw new DomainError("forbidden", REFUSED.sessionOnly);
    return next({ ctx: { caller } });
  })
  .use(wire);
