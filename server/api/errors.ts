/**
 * The API's side of errors: the one mapping of the domain's error codes (server/errors.ts) to HTTP statuses and tRPC
 * codes, and validation failures as the FastAPI-style list the spec shows: `{detail: [{type, loc, msg, input}]}`.
 */
import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/unstable-core-do-not-import";
import { z, type core } from "zod";
import type { DomainError, ErrorCode } from "../errors";

/** Each domain error code as an HTTP status (routes outside tRPC) and a tRPC code (which the adapters answer with it). */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  internal: 500,
  upstream_failed: 502,
  unavailable: 503,
};
const TRPC_CODE: Record<ErrorCode, TRPC_ERROR_CODE_KEY> = {
  invalid: "BAD_REQUEST",
  unauthorized: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  not_found: "NOT_FOUND",
  conflict: "CONFLICT",
  rate_limited: "TOO_MANY_REQUESTS",
  internal: "INTERNAL_SERVER_ERROR",
  upstream_failed: "BAD_GATEWAY",
  unavailable: "SERVICE_UNAVAILABLE",
};

/** Marks errors whose message is meant for the client; any other 500 is answered "Internal Server Error". */
export const EXPOSED = Symbol.for("watch.api.exposed");

export const toTRPCError = (e: DomainError) =>
  Object.assign(new TRPCError({ code: TRPC_CODE[e.code], message: e.message, cause: e }), { [EXPOSED]: true });

/** One item of a 422's `detail` list: the one definition (the OpenAPI document's component, and so the SDK's type). */
export const ValidationIssueSchema = z
  .strictObject({
    type: z.string().meta({ examples: ["missing", "enum", "string_type", "uuid_parsing"] }),
    loc: z
      .array(z.union([z.string(), z.number().int()]))
      .meta({ description: "Where: `body`, `query` or `path`, then the field's path" }),
    msg: z.string(),
    input: z
      .unknown()
      .meta({ description: "The offending input (for a missing field, the object it is missing from)" }),
  })
  .meta({ id: "ValidationIssue" });
export type ValidationDetail = z.infer<typeof ValidationIssueSchema>;

export const ValidationErrorSchema = z
  .object({ detail: z.array(ValidationIssueSchema) })
  .meta({ id: "ValidationError" });

/** Every other error's body. */
export const ErrorSchema = z.object({ detail: z.string() }).meta({ id: "Error" });
export type Location = "body" | "query" | "path";

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

const typeNames: Record<string, [string, string]> = {
  string: ["string_type", "Input should be a valid string"],
  boolean: ["bool_type", "Input should be a valid boolean"],
  number: ["float_type", "Input should be a valid number"],
  int: ["int_type", "Input should be a valid integer"],
  object: ["dict_type", "Input should be a valid dictionary or object"],
  array: ["list_type", "Input should be a valid list"],
  date: ["datetime_type", "Input should be a valid datetime"],
};

function describe(issue: core.$ZodIssue, value: unknown, inQuery: boolean): Pick<ValidationDetail, "type" | "msg"> {
  switch (issue.code) {
    case "invalid_type": {
      if (value === undefined) return { type: "missing", msg: "Field required" };
      const [type, msg] = typeNames[issue.expected] ?? [`${issue.expected}_type`, issue.message];
      // Query strings are coerced: a non-numeric `?limit=abc` is a parsing problem, not a type problem.
      if (inQuery && (issue.expected === "number" || issue.expected === "int"))
        return { type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" };
      return { type, msg };
    }
    case "invalid_value": {
      const options = issue.values.map((v) => `'${String(v)}'`);
      const list = options.length > 1 ? `${options.slice(0, -1).join(", ")} or ${options.at(-1)}` : options[0];
      return options.length === 1
        ? { type: "literal_error", msg: `Input should be ${list}` }
        : { type: "enum", msg: `Input should be ${list}` };
    }
    case "invalid_format":
      if (issue.format === "uuid" || issue.format === "guid")
        return { type: "uuid_parsing", msg: "Input should be a valid UUID" };
      if (issue.format === "email") return { type: "value_error", msg: "value is not a valid email address" };
      if (issue.format === "url") return { type: "url_parsing", msg: "Input should be a valid URL" };
      return { type: "string_pattern_mismatch", msg: issue.message };
    case "too_small":
      if (issue.origin === "string")
        return {
          type: "string_too_short",
          msg: `String should have at least ${issue.minimum} character${Number(issue.minimum) === 1 ? "" : "s"}`,
        };
      if (issue.origin === "array")
        return { type: "too_short", msg: `List should have at least ${issue.minimum} items` };
      return { type: "greater_than_equal", msg: `Input should be greater than or equal to ${issue.minimum}` };
    case "too_big":
      if (issue.origin === "string")
        return { type: "string_too_long", msg: `String should have at most ${issue.maximum} characters` };
      if (issue.origin === "array") return { type: "too_long", msg: `List should have at most ${issue.maximum} items` };
      return { type: "less_than_equal", msg: `Input should be less than or equal to ${issue.maximum}` };
    case "unrecognized_keys":
      return { type: "extra_forbidden", msg: "Extra inputs are not permitted" };
    default:
      return { type: "value_error", msg: issue.message };
  }
}

/**
 * Maps zod issues to the spec's 422 list. `locate` tells where a top-level field came from (path params are
 * merged into the input by the OpenAPI adapter).
 */
export function validationDetails(
  issues: readonly core.$ZodIssue[],
  input: unknown,
  locate: (field: string | undefined) => Location,
): ValidationDetail[] {
  const out: ValidationDetail[] = [];
  for (const issue of issues) {
    const keys = issue.code === "unrecognized_keys" ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
    for (const path of keys) {
      const value = valueAt(input, path);
      const where = locate(typeof path[0] === "string" ? path[0] : undefined);
      const { type, msg } = describe(issue, value, where === "query");
      const loc = [where, ...path.map((p) => (typeof p === "number" ? p : String(p)))];
      const shownInput = type === "missing" ? (valueAt(input, path.slice(0, -1)) ?? {}) : value;
      out.push({ type, loc, msg, input: shownInput === undefined ? null : shownInput });
    }
  }
  return out;
}

/**
 * What an error answers as `detail`, on every transport: the 422 list for a validation failure, "Internal Server Error"
 * for anything unexpected (its message may hold internals), else the message, which was written for the client.
 */
export function errorDetail(
  error: TRPCError,
  input: unknown,
  locate: (field: string | undefined) => Location,
): string | ValidationDetail[] {
  if (error.code === "BAD_REQUEST" && isZodError(error.cause))
    return validationDetails(error.cause.issues, input, locate);
  if (error.code === "INTERNAL_SERVER_ERROR" && !(EXPOSED in error)) return "Internal Server Error";
  return error.message;
}

/**
 * A validation failure, recognised by its name and issues rather than by class: zod's own ZodError is no Error
 * subclass, and a bundle may hold more than one copy of zod, so neither `instanceof` can be trusted in every build.
 */
export function isZodError(cause: unknown): cause is { name: "ZodError"; message: string; issues: core.$ZodIssue[] } {
  return (
    typeof cause === "object" &&
    cause !== null &&
    (cause as { name?: unknown }).name === "ZodError" &&
    Array.isArray((cause as { issues?: unknown }).issues)
  );
}
