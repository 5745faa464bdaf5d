/**
 * The pipeline of every route outside tRPC (RSS, one-click unsubscribe, the waitlist form, …): the request's id, the
 * client's rate-limit bucket (the front recorded its address), and errors answered like the API's — a DomainError by
 * its code, a validation failure as the 422 list, a database outage as 503 with Retry-After, anything else a logged
 * 500 "Internal Server Error". The API's own pipeline is the base procedure of server/api/trpc.ts.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { HTTP_STATUS, isZodError, validationDetails, type Location } from "../api/errors";
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE, isDatabaseUnavailable } from "../db/availability";
import { isDomainError } from "../errors";
import { rateLimitMessage, takeToken, type Bucket } from "../ratelimit";
import { log } from "../observability/log.mjs";

const json = (status: number, body: unknown, headers: Record<string, string>) =>
  Response.json(body, { status, headers });

/**
 * `opts.rateLimit` is the bucket a request counts against (by client address); `opts.params` the schema of the path
 * parameters, validated before `handle` gets them (an endpoint of server/http/endpoints.ts declares both).
 */
export function route<S extends z.ZodObject = z.ZodObject<Record<string, never>>>(
  opts: {
    rateLimit?: Bucket;
    params?: S;
    /** An answer of the route's own kind when the client is over its limit (a form redirects). */
    limited?: (req: Request, message: string) => Response;
  },
  handle: (req: Request, params: z.infer<S>) => Promise<Response>,
) {
  const inPath = (field: string | undefined): Location => (field && opts.params?.shape[field] ? "path" : "body");
  return async (req: Request, context?: { params?: Promise<Record<string, string>> }) => {
    const headers: Record<string, string> = { "x-request-id": req.headers.get("x-request-id") ?? randomUUID() };
    const raw = (await context?.params) ?? {};
    try {
      if (opts.rateLimit) {
        const verdict = await takeToken(opts.rateLimit, req.headers.get("x-watch-client-ip") ?? "unknown");
        Object.assign(headers, verdict.headers);
        if (!verdict.ok) {
          const message = rateLimitMessage(verdict.retryAfter);
          return opts.limited ? opts.limited(req, message) : json(429, { detail: message }, headers);
        }
      }
      const answer = await handle(req, (opts.params ? opts.params.parse(raw) : raw) as z.infer<S>);
      // A redirect's headers are immutable (Response.redirect): the answer is copied to add the request's own.
      const res = new Response(answer.body, answer);
      for (const [k, v] of Object.entries(headers)) if (!res.headers.has(k)) res.headers.set(k, v);
      return res;
    } catch (e) {
      if (isDomainError(e)) return json(HTTP_STATUS[e.code], { detail: e.message }, { ...headers, ...e.headers });
      if (isZodError(e)) return json(422, { detail: validationDetails(e.issues, raw, inPath) }, headers);
      if (isDatabaseUnavailable(e))
        return json(
          503,
          { detail: DATABASE_UNAVAILABLE },
          { ...headers, "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) },
        );
      log.error({ err: e }, `${req.method} ${new URL(req.url).pathname} failed`);
      return json(500, { detail: "Internal Server Error" }, headers);
    }
  };
}
