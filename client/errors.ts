/** Typed errors of the Watch API: the HTTP status and the server's `detail`. */
import type { components } from "./openapi";

/** One item of a 422's `detail`: `{type, loc, msg, input}`, as the OpenAPI document defines it. */
export type ValidationIssue = components["schemas"]["ValidationIssue"];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(
      typeof detail === "string"
        ? detail
        : Array.isArray(detail)
          ? describe(detail as ValidationIssue[])
          : `HTTP ${status}`,
    );
    this.name = new.target.name;
  }
}

export class AuthenticationError extends ApiError {}
export class NotFoundError extends ApiError {}
export class ConflictError extends ApiError {}

export class ValidationError extends ApiError {
  /** The offending fields (422), e.g. `[{ loc: ["body", "search_query"], msg: "Field required", … }]`; empty for a 400. */
  get fields(): ValidationIssue[] {
    return Array.isArray(this.detail) ? (this.detail as ValidationIssue[]) : [];
  }
}

export class RateLimitError extends ApiError {
  constructor(
    status: number,
    detail: unknown,
    /** Seconds to wait, from `Retry-After`. */
    readonly retryAfter: number | null,
  ) {
    super(status, detail);
  }
}

function describe(issues: ValidationIssue[]) {
  return issues.map((i) => `${i.loc.slice(1).join(".") || i.loc.join(".")}: ${i.msg}`).join("; ");
}

export function errorFor(status: number, detail: unknown, headers: Headers): ApiError {
  if (status === 401) return new AuthenticationError(status, detail);
  if (status === 404) return new NotFoundError(status, detail);
  if (status === 400 || status === 422) return new ValidationError(status, detail);
  if (status === 409) return new ConflictError(status, detail);
  if (status === 429) return new RateLimitError(status, detail, retryAfterSeconds(headers));
  return new ApiError(status, detail);
}

export function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get("retry-after");
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}
