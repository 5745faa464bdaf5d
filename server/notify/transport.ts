/**
 * How every chat and push channel's request reaches its service, the same way as a webhook: a URL the user typed is
 * https (unless WEBHOOK_ALLOW_PRIVATE) and is connected to through the address-checked client
 * (server/net/guarded-fetch.ts: no private address at connect, no redirects, 10 s timeout). The channel describes the
 * request and reads the answer (channels/kit/delivery.ts); only this module reaches the network for it.
 */
import { readAnswer, type HttpAnswer, type HttpRequest, type Outcome } from "../../channels/kit/delivery";
import { env } from "../env";
import { BlockedAddressError, guardedFetch } from "../net/guarded-fetch";

export const TIMEOUT_MS = 10_000;
/** Retries 1 min, 5 min and 30 min after a failed attempt: four attempts in all. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000] as const;

/** Makes the request; `read` says what the answer means (the channel's own reading, else the common one). */
export async function send(req: HttpRequest, read: (answer: HttpAnswer) => Outcome = readAnswer): Promise<Outcome> {
  if (!req.trusted && !req.url.startsWith("https://") && !env.WEBHOOK_ALLOW_PRIVATE)
    return { status: "failed", error: "url must use https", permanent: true };
  try {
    const res = await guardedFetch(req.url, {
      method: req.method ?? "POST",
      headers: { "content-type": "application/json", "user-agent": "Watch-Notifications/1.0", ...req.headers },
      body: JSON.stringify(req.body),
      timeoutMs: TIMEOUT_MS,
      maxBytes: 64 * 1024,
      allowPrivate: req.trusted || env.WEBHOOK_ALLOW_PRIVATE,
    });
    return read(res);
  } catch (e) {
    if (e instanceof BlockedAddressError) return { status: "failed", error: `refused: ${e.message}`, permanent: true };
    const cause = (e as { cause?: { message?: string } }).cause?.message;
    return { status: "failed", error: `${(e as Error).message}${cause ? ` (${cause})` : ""}`, permanent: false };
  }
}
