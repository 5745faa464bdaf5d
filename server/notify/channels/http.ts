/**
 * How every HTTP channel reaches its service, the same way as a webhook: a URL the user typed is https (unless
 * WEBHOOK_ALLOW_PRIVATE), names no private address, is connected to through the address-checked client
 * (server/net/guarded-fetch.ts: no redirects, 10 s timeout), and one attempt's outcome says whether to retry and
 * how long the service asked to wait (a 429's Retry-After header, or `retry_after` in its JSON body).
 */
import ipaddr from "ipaddr.js";
import { DomainError } from "../../errors";
import { env } from "../../env";
import { BlockedAddressError, guardedFetch, isPublicAddress } from "../../net/guarded-fetch";

export const TIMEOUT_MS = 10_000;
/** Retries 1 min, 5 min and 30 min after a failed attempt: four attempts in all. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000] as const;

export const invalid = (why: string) => new DomainError("invalid", `Invalid notification: ${why}`);

/** A literal address or `localhost` in the URL; names that resolve to such addresses are refused at delivery. */
export function isPrivateHost(hostname: string) {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal")) return true;
  return ipaddr.isValid(host) && !isPublicAddress(host);
}

/** A URL a user typed for a channel (`what`: "webhook url", "slack url"): checked, returned as written. */
export function checkUrl(what: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`${what} '${raw}' is not a valid URL`);
  }
  if (url.protocol !== "https:" && !(env.WEBHOOK_ALLOW_PRIVATE && url.protocol === "http:"))
    throw invalid(`${what} must use https`);
  if (url.username || url.password) throw invalid(`${what} must not contain credentials`);
  if (!env.WEBHOOK_ALLOW_PRIVATE && isPrivateHost(url.hostname))
    throw invalid(`${what} must not point to a private, loopback or link-local address`);
  return raw;
}

export type Attempted = {
  status: "sent" | "failed";
  error: string | null;
  /** Retrying cannot help (the endpoint is gone, or refused by the address check). */
  permanent: boolean;
  /** The service asked to wait this long before the next attempt. */
  retryAfterMs?: number;
};

/** A 429's wait: the Retry-After header (seconds or a date), else `retry_after` (seconds) in the JSON body. */
function retryAfter(headers: Record<string, string | string[] | undefined>, body: string): number | undefined {
  const header = headers["retry-after"];
  const value = Array.isArray(header) ? header[0] : header;
  if (value) {
    const seconds = Number(value);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(value);
    if (Number.isFinite(at)) return Math.max(0, at - Date.now());
  }
  try {
    const json = JSON.parse(body) as { retry_after?: unknown; parameters?: { retry_after?: unknown } };
    const seconds = Number(json.retry_after ?? json.parameters?.retry_after);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  } catch {
    // not JSON: no wait given
  }
  return undefined;
}

/** One request. `trusted`: configuration of the operator's (TELEGRAM_API_URL), not a URL a user typed. */
export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body: string; trusted?: boolean },
): Promise<Attempted> {
  if (!init.trusted && !url.startsWith("https://") && !env.WEBHOOK_ALLOW_PRIVATE)
    return { status: "failed", error: "url must use https", permanent: true };
  try {
    const res = await guardedFetch(url, {
      method: init.method ?? "POST",
      headers: { "content-type": "application/json", "user-agent": "Watch-Notifications/1.0", ...init.headers },
      body: init.body,
      timeoutMs: TIMEOUT_MS,
      maxBytes: 64 * 1024,
      allowPrivate: init.trusted || env.WEBHOOK_ALLOW_PRIVATE,
    });
    if (res.status >= 200 && res.status < 300) return { status: "sent", error: null, permanent: false };
    if (res.status >= 300 && res.status < 400)
      return { status: "failed", error: `HTTP ${res.status}: redirects are not followed`, permanent: false };
    if (res.status === 429)
      return { status: "failed", error: "HTTP 429", permanent: false, retryAfterMs: retryAfter(res.headers, res.body) };
    const detail = res.body.slice(0, 200).replace(/\s+/g, " ").trim();
    return {
      status: "failed",
      error: `HTTP ${res.status}${detail ? `: ${detail}` : ""}`,
      permanent: res.status === 410,
    };
  } catch (e) {
    if (e instanceof BlockedAddressError) return { status: "failed", error: `refused: ${e.message}`, permanent: true };
    const cause = (e as { cause?: { message?: string } }).cause?.message;
    return { status: "failed", error: `${(e as Error).message}${cause ? ` (${cause})` : ""}`, permanent: false };
  }
}
