/**
 * A webhook: any HTTPS endpoint of the user's, with their own headers. Its config and checks live here; the server
 * signs (Standard Webhooks, with the receiving account's secret) and sends each delivery itself (server/notify/webhook.ts).
 */
import { z } from "zod";
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";
import { checkUrl } from "../kit/urls";

/** Set by the service when it signs and sends; a config may add headers but never replace these. */
const RESERVED_HEADERS = new Set([
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
  "content-type",
  "content-length",
  "host",
  "connection",
  "transfer-encoding",
  "user-agent",
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_HEADERS = 20;

function checkHeaders(headers: Record<string, string>) {
  const names = Object.keys(headers);
  if (names.length > MAX_HEADERS) throw new ConfigError(`at most ${MAX_HEADERS} webhook headers are allowed`);
  for (const name of names) {
    if (!HEADER_NAME.test(name)) throw new ConfigError(`'${name}' is not a valid header name`);
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      throw new ConfigError(`header '${name}' is set by the service and cannot be overridden`);
    if (/[\r\n\0]/.test(headers[name]!) || headers[name]!.length > 1024)
      throw new ConfigError(`header '${name}' has an invalid value`);
  }
}

export const webhook = defineChannel({
  type: "webhook",
  label: "Webhook",
  help: "Any HTTPS endpoint of yours. Deliveries are signed with Standard Webhooks; verify them with the signing secret under Notifications.",
  api: { id: "WebhookNotification", description: "Webhook notification channel (Standard Webhooks signed)" },
  fields: {
    url: field(text(), { label: "Webhook URL", kind: "url", placeholder: "https://example.com/hooks/watch" }),
    method: field(z.enum(["POST", "PUT", "PATCH"]).default("POST"), { label: "Method", kind: "choice" }),
    headers: field(z.record(text(), text()).default({}), { label: "Headers", kind: "headers", secret: "export" }),
  },
  example: { url: "https://example.com/hooks/watch", method: "POST", headers: {} },
  check(c, context) {
    checkUrl("webhook url", c.url, context);
    checkHeaders(c.headers);
    return c;
  },
  summary: (c) => `${String(c.method ?? "POST")} ${String(c.url ?? "")}`,
});
