/**
 * A delivery as data: the request a channel asks the server to make, the service's answer as the server read it, and
 * what that answer means (sent, or failed: retry or not, and how long the service asked to wait). The server makes the
 * request through its address-checked client (server/notify/transport.ts); a channel never reaches the network itself.
 */
export type HttpRequest = {
  url: string;
  /** POST unless the service wants another. */
  method?: "POST" | "PUT";
  /** Sent as JSON. */
  body: unknown;
  headers?: Record<string, string>;
  /** The URL is the operator's own setting (TELEGRAM_API_URL), not one a user typed: the address check trusts it. */
  trusted?: boolean;
};

export type HttpAnswer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

export type Outcome = {
  status: "sent" | "failed";
  error: string | null;
  /** Retrying cannot help (the endpoint is gone, or refused by the address check). */
  permanent: boolean;
  /** The service asked to wait this long before the next attempt. */
  retryAfterMs?: number;
};

/**
 * A 429's wait: the Retry-After header (seconds or a date), else, for a service that says it in its JSON body, the
 * number of seconds at `jsonPath` (Discord's `retry_after`, Telegram's `parameters.retry_after`).
 */
export function retryAfter(answer: HttpAnswer, jsonPath?: readonly string[], now = Date.now()): number | undefined {
  const header = answer.headers["retry-after"];
  const value = Array.isArray(header) ? header[0] : header;
  if (value) {
    const seconds = Number(value);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(value);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  if (!jsonPath) return undefined;
  try {
    let found: unknown = JSON.parse(answer.body);
    for (const key of jsonPath) found = (found as Record<string, unknown> | null)?.[key];
    const seconds = typeof found === "number" || typeof found === "string" ? Number(found) : NaN;
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  } catch {
    // not JSON: no wait given
  }
  return undefined;
}

/**
 * How most services answer: 2xx sent; a redirect is not followed; a 429 says how long to wait (`jsonPath`: where its
 * JSON body says it, see retryAfter); 410 is for ever.
 */
export function readAnswer(answer: HttpAnswer, jsonPath?: readonly string[]): Outcome {
  const { status } = answer;
  if (status >= 200 && status < 300) return { status: "sent", error: null, permanent: false };
  if (status >= 300 && status < 400)
    return { status: "failed", error: `HTTP ${status}: redirects are not followed`, permanent: false };
  if (status === 429)
    return { status: "failed", error: "HTTP 429", permanent: false, retryAfterMs: retryAfter(answer, jsonPath) };
  const detail = answer.body.slice(0, 200).replace(/\s+/g, " ").trim();
  return { status: "failed", error: `HTTP ${status}${detail ? `: ${detail}` : ""}`, permanent: status === 410 };
}
