/**
 * The domain's failures: a closed set of codes, with no transport in sight. Domain modules throw DomainErrors; the
 * one mapping to HTTP statuses lives in server/api/errors.ts; routes and pages test the code, never the message.
 * A DomainError's message is written for the client.
 */
import { z } from "zod";

export const ERROR_CODES = [
  "invalid", // 400: well-formed but not acceptable (a bad notification, a wrong state transition)
  "unauthorized", // 401: missing, invalid or expired credentials
  "forbidden", // 403: known caller, not allowed (a role, a quota)
  "not_found", // 404: absent, or not the caller's to see
  "conflict", // 409: the current state forbids it (a run already open, a taken name)
  "rate_limited", // 429
  "internal", // 500 with an explanation (a failed rollback)
  "upstream_failed", // 502: a provider the request depended on failed
  "unavailable", // 503: a dependency is down or not configured
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class DomainError extends Error {
  /** Response headers that belong to the answer (Retry-After and X-RateLimit-* of a rate limit). */
  readonly headers: Record<string, string>;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "DomainError";
    this.headers = options.headers ?? {};
  }
}

export const isDomainError = (e: unknown, code?: ErrorCode): e is DomainError =>
  e instanceof DomainError && (!code || e.code === code);

export const notFound = (what = "Task") => new DomainError("not_found", `${what} not found`);

/**
 * A 422 for a field whose value is well-formed but wrong given other data, as a validation failure of the input
 * (answered like the schema's own). It is zod's Error subclass: what a schema's parse throws, and what tRPC keeps
 * as the cause with its issues (a thrown non-Error is copied into a plain Error without them).
 */
export function validationError(field: string, message: string, input: unknown) {
  const issue = { code: "custom" as const, path: [field], message, input: (input as Record<string, unknown>)?.[field] };
  // The Error-derived ZodError (what `parse` throws): tRPC keeps an Error as the cause, `issues` included.
  return new z.ZodRealError([issue]);
}
