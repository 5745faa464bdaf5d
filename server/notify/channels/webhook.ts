/** Webhooks signed with Standard Webhooks (../webhook): any HTTPS endpoint of the user's, with their own headers. */
import { z } from "zod";
import { webhook as spec } from "../../../client/channels/webhook";
import { text } from "../../../lib/text";
import { checkUrl, invalid, RETRY_DELAYS_MS } from "./http";
import { defineChannel } from "./types";

/** Loaded when first needed: the webhook payload's views import the wire schemas, built from this registry. */
const hooks = () => import("../webhook");

export const WebhookNotification = z
  .object({
    type: z.literal("webhook"),
    url: text(),
    method: z.enum(["POST", "PUT", "PATCH"]).default("POST"),
    headers: z.record(text(), text()).default({}),
  })
  .meta({ id: "WebhookNotification", description: "Webhook notification channel (Standard Webhooks signed)" });

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
  if (names.length > MAX_HEADERS) throw invalid(`at most ${MAX_HEADERS} webhook headers are allowed`);
  for (const name of names) {
    if (!HEADER_NAME.test(name)) throw invalid(`'${name}' is not a valid header name`);
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      throw invalid(`header '${name}' is set by the service and cannot be overridden`);
    if (/[\r\n\0]/.test(headers[name]!) || headers[name]!.length > 1024)
      throw invalid(`header '${name}' has an invalid value`);
  }
}

export const webhook = defineChannel({
  type: "webhook",
  spec,
  schema: WebhookNotification,
  check(c) {
    checkUrl("webhook url", c.url);
    checkHeaders(c.headers);
    return c;
  },
  retryDelaysMs: RETRY_DELAYS_MS,
  deliver: async (executionId, notice, attempt, followId) =>
    (await hooks()).deliverWebhook(executionId, notice, attempt, followId),
  test: async (user, task, c) => (await hooks()).sendTestWebhook(user, task, c),
});
