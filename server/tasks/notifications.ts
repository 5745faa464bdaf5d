/** Validation of a watch's notification channels (SPEC §2.3): 400 `Invalid notification: …` on any problem. */
import ipaddr from "ipaddr.js";
import { z } from "zod";
import { DomainError } from "../errors";
import { env } from "../env";
import { NotificationConfig, type NotificationConfig as Config } from "./schemas";

export const DUPLICATE_NOTIFICATIONS =
  "Multiple notifications of the same type are not supported. Please provide at most one email and one webhook notification.";

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

const invalid = (why: string) => new DomainError("invalid", `Invalid notification: ${why}`);

/** A literal address or `localhost` in the URL; names that resolve to such addresses are refused at delivery. */
export function isPrivateHost(hostname: string) {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal")) return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() !== "unicast";
}

function checkWebhookUrl(raw: string) {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`webhook url '${raw}' is not a valid URL`);
  }
  if (url.protocol !== "https:" && !(env.WEBHOOK_ALLOW_PRIVATE && url.protocol === "http:"))
    throw invalid("webhook url must use https");
  if (url.username || url.password) throw invalid("webhook url must not contain credentials");
  if (!env.WEBHOOK_ALLOW_PRIVATE && isPrivateHost(url.hostname))
    throw invalid("webhook url must not point to a private, loopback or link-local address");
}

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

/** Parses and checks the configs; returns them normalised (email lower-cased, webhook method/headers defaulted). */
export function parseNotifications(items: unknown[]): Config[] {
  const seen = new Set<string>();
  const out: Config[] = [];
  for (const item of items) {
    const type = (item as { type?: unknown })?.type;
    if (type !== "email" && type !== "webhook")
      throw invalid(`type must be 'email' or 'webhook', got ${JSON.stringify(type ?? null)}`);
    if (seen.has(type)) throw new DomainError("invalid", DUPLICATE_NOTIFICATIONS);
    seen.add(type);
    const parsed = NotificationConfig.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.join(".") || type;
      throw invalid(`${type} ${field}: ${issue.message}`);
    }
    const config = parsed.data;
    if (config.type === "email") {
      const address = config.address.trim().toLowerCase();
      if (!z.email({ pattern: z.regexes.html5Email }).safeParse(address).success)
        throw invalid(`'${config.address}' is not a valid email address`);
      out.push({ type: "email", address });
    } else {
      checkWebhookUrl(config.url);
      checkHeaders(config.headers);
      out.push(config);
    }
  }
  return out;
}
