/**
 * The one logger of the process (pino), for the front and the server code alike: one JSON object per line (`time`,
 * `level`, `msg`, and `request_id` / `execution_id` / `task_id` when the line is written inside a request or a run),
 * or readable lines in development (LOG_FORMAT). Secrets never reach a line: credential fields are redacted, and API
 * keys, webhook secrets and bearer tokens are masked in whatever text carries them (an error message, a URL).
 * Created on first use, after `npm start` has read the .env files; shared through `globalThis` by the unbundled front
 * and the code Next.js bundles. Plain JavaScript for the front.
 */
import pino from "pino";
import pretty from "pino-pretty";
import { currentActivity } from "./context.mjs";

const KEY = Symbol.for("watch.logger");

/** `sk_…` API keys (and Clerk's), `whsec_…` signing secrets, bearer tokens and JWTs. */
const SECRET =
  /\b(sk|whsec)_[A-Za-z0-9+/=_-]{6,}|\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;

/** @param {string} text */
export const maskSecrets = (text) =>
  text.replace(SECRET, (_m, prefix, bearer) => (prefix ? `${prefix}_[redacted]` : `${bearer ?? ""}[redacted]`));

const REDACTED_FIELDS = ["authorization", "cookie", "api_key", "apiKey", "secret", "token", "password"].flatMap((k) => [
  k,
  `*.${k}`,
  `*.headers.${k}`,
]);

export function logFormat() {
  const format = process.env.LOG_FORMAT;
  if (format === "json" || format === "pretty") return format;
  return process.env.NODE_ENV === "production" ? "json" : "pretty";
}

function create() {
  const level = ["debug", "info", "warn", "error"].includes(process.env.LOG_LEVEL ?? "")
    ? process.env.LOG_LEVEL
    : "info";
  /** @type {import("pino").LoggerOptions} */
  const options = {
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => currentActivity()?.ids ?? {},
    redact: { paths: REDACTED_FIELDS, censor: "[redacted]" },
    hooks: { streamWrite: maskSecrets },
  };
  if (logFormat() === "json") return pino(options, pino.destination({ fd: 1, sync: true }));
  return pino(
    options,
    pretty({
      sync: true,
      colorize: !!process.stdout.isTTY,
      translateTime: "SYS:HH:MM:ss.l",
      ignore: "pid,hostname",
    }),
  );
}

/** @returns {import("pino").Logger} */
export function logger() {
  return (globalThis[KEY] ??= create());
}

/**
 * `log.info("text")`, `log.error({ err }, "what failed")`: the fields object first, as pino takes it.
 * @type {Pick<import("pino").Logger, "debug" | "info" | "warn" | "error" | "fatal">}
 */
export const log = {
  debug: (...args) => logger().debug(...args),
  info: (...args) => logger().info(...args),
  warn: (...args) => logger().warn(...args),
  error: (...args) => logger().error(...args),
  fatal: (...args) => logger().fatal(...args),
};
