/**
 * Whether an error means the database cannot be reached right now (down, restarting, refusing connections, pool
 * exhausted), as opposed to a bug: the API answers those 503 with Retry-After, which clients retry (the SDK does).
 * The error is the one Prisma (its P1xxx codes and P2024) or node-postgres (a socket error, SQLSTATE class 08 or
 * 57P0x) threw; its causes are not searched, so a failed `fetch` to some other service is not taken for the database.
 */
import { Prisma } from "./generated/client";

export const DATABASE_UNAVAILABLE =
  "Service temporarily unavailable: the database cannot be reached. Try again shortly.";
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
// admin_shutdown, crash_shutdown, cannot_connect_now ("the database system is starting up"), too_many_connections
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);

export function isDatabaseUnavailable(e: unknown): boolean {
  if (e instanceof Prisma.PrismaClientInitializationError) return true;
  if (e instanceof Prisma.PrismaClientKnownRequestError) return PRISMA_CODES.has(e.code);
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && (SOCKET_CODES.has(code) || SQLSTATES.has(code) || code.startsWith("08"))) return true;
  return /^Connection terminated/.test(e.message);
}
