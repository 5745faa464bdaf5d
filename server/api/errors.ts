/**
 * The error vocabulary of the API. Domain code throws `ApiError`s (or TRPCErrors); validation failures are
 * turned into the FastAPI-style list the spec shows: `{detail: [{type, loc, msg, input}]}`.
 */
import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/unstable-core-do-not-import";
import { z, type core } from "zod";

const STATUS_CODE: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
};

/** Marks errors whose message is meant for the client; any other 500 is answered "Internal Server Error". */
export const EXPOSED = Symbol.for("watch.api.exposed");

/** An error whose `detail` is meant for the client, with its HTTP status. */
export function apiError(status: keyof typeof STATUS_CODE, detail: string, cause?: unknown) {
  return Object.assign(new TRPCError({ code: STATUS_CODE[status]!, message: detail, cause }), { [EXPOSED]: true });
}

export const notFound = (what = "Task") => apiError(404, `${what} not found`);

/** A 422 for a field whose value is well-formed but wrong given other data (formatted like the schema's own). */
export function validationError(field: string, message: string, input: unknown) {
  const issue = { code: "custom" as const, path: [field], message, input: (input as Record<string, unknown>)?.[field] };
  return new TRPCError({ code: "BAD_REQUEST", message, cause: new z.ZodError([issue]) });
}

export type ValidationDetail = { type: string; loc: (string | number)[]; msg: string; input: unknown };
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
      if (issue.origin === "array") return { type: "too_short", msg: `List should have at least ${issue.minimum} items` };
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

export function isZodError(cause: unknown): cause is Error & { issues: core.$ZodIssue[] } {
  return cause instanceof Error && cause.name === "ZodError" && Array.isArray((cause as { issues?: unknown }).issues);
}
