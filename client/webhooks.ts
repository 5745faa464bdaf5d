/**
 * Receiving side: verify that a webhook came from Watch (Standard Webhooks signature with your signing secret
 * from GET /api/v1/webhooks/secret) and parse its payload. Throws on a bad signature or a stale timestamp.
 *
 *   app.post("/hooks/watch", express.text({ type: "*\/*" }), (req, res) => {
 *     const event = verifyWebhook(process.env.WATCH_WEBHOOK_SECRET!, req.headers, req.body);
 *     …
 *   });
 */
import { Webhook } from "standardwebhooks";

export function verifyWebhook<T = Record<string, unknown>>(
  secret: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string,
): T {
  const plain: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((v, k) => (plain[k] = v));
  else for (const [k, v] of Object.entries(headers)) if (v !== undefined) plain[k.toLowerCase()] = Array.isArray(v) ? v.join(",") : v;
  return new Webhook(secret).verify(body, plain) as T;
}
