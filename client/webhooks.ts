/**
 * Receiving side: verify that a webhook came from Watch (Standard Webhooks signature with your signing secret
 * from GET /api/v1/webhooks/secret) and parse its payload. Throws on a bad signature or a stale timestamp.
 * During a rotation's overlap every delivery is signed with both the new and the old secret, so a receiver still
 * on the old one keeps verifying; pass both (`[newSecret, oldSecret]`) while you switch over.
 *
 *   app.post("/hooks/watch", express.text({ type: "*\/*" }), (req, res) => {
 *     const event = verifyWebhook(process.env.WATCH_WEBHOOK_SECRET!, req.headers, req.body);
 *     …
 *   });
 */
import { Webhook } from "standardwebhooks";

export function verifyWebhook<T = Record<string, unknown>>(
  secret: string | string[],
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string,
): T {
  const plain: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((v, k) => (plain[k] = v));
  else
    for (const [k, v] of Object.entries(headers))
      if (v !== undefined) plain[k.toLowerCase()] = Array.isArray(v) ? v.join(",") : v;
  const secrets = Array.isArray(secret) ? secret : [secret];
  for (const [i, s] of secrets.entries()) {
    try {
      return new Webhook(s).verify(body, plain) as T;
    } catch (e) {
      if (i === secrets.length - 1) throw e;
    }
  }
  throw new Error("verifyWebhook: no secret given");
}
