/**
 * A URL a user typed for a channel: https (unless the operator's WEBHOOK_ALLOW_PRIVATE), no credentials in it, and
 * no literal private, loopback or link-local address. Names that resolve to such addresses are refused when the
 * server connects (its address-checked client).
 */
import ipaddr from "ipaddr.js";
import { ConfigError, type CheckContext } from "./define";

/** A literal address or `localhost` in the URL; names that resolve to such addresses are refused at delivery. */
export function isPrivateHost(hostname: string) {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal")) return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() !== "unicast";
}

/** The URL as written, checked (`what`: "webhook url", "slack url"); the message never repeats it (it may hold a secret). */
export function checkUrl(what: string, raw: string, context: CheckContext): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${what} is not a valid URL`);
  }
  if (url.protocol !== "https:" && !(context.allowPrivate && url.protocol === "http:"))
    throw new ConfigError(`${what} must use https`);
  if (url.username || url.password) throw new ConfigError(`${what} must not contain credentials`);
  if (!context.allowPrivate && isPrivateHost(url.hostname))
    throw new ConfigError(`${what} must not point to a private, loopback or link-local address`);
  return raw;
}
