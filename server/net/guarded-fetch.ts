/**
 * Outbound HTTP to user-supplied URLs (webhooks, pages the agent reads) without reaching internal services:
 * the address actually connected to is checked (DNS resolution happens in the connection's own lookup, so a
 * name cannot resolve to a public address for the check and a private one for the connection), redirects are
 * not followed, bodies are size-capped and requests time out. `allowPrivate` lifts the address check: each
 * caller passes its own setting (WEBHOOK_ALLOW_PRIVATE for webhooks, AGENT_FETCH_ALLOW_PRIVATE for the agent).
 */
import dns from "node:dns";
import ipaddr from "ipaddr.js";
import { Agent, request } from "undici";

export class BlockedAddressError extends Error {}

/**
 * An address as URLs and sockets read it. IPv6 goes through the URL parser first: ipaddr.js reads an embedded IPv4
 * (`::8.8.8.8`, the form the resolver prints IPv4-compatible addresses in) as IPv4-mapped (`::ffff:8.8.8.8`).
 */
function parseAddress(ip: string) {
  try {
    const text = ip.includes(":") ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
    return ipaddr.isValid(text) ? ipaddr.parse(text) : null;
  } catch {
    return null;
  }
}

/**
 * Loopback, private, link-local, unique-local, carrier-grade NAT, multicast, reserved, metadata: not public. Nor are
 * the deprecated IPv6 forms: IPv4-compatible addresses (`::/96`, e.g. `[::127.0.0.1]`, which URLs write `[::7f00:1]`)
 * and site-local ones (`fec0::/10`), which a host may still route to an internal address.
 */
export function isPublicAddress(ip: string) {
  const address = parseAddress(ip);
  if (!address) return false;
  if (address instanceof ipaddr.IPv6) {
    if (address.parts.slice(0, 6).every((p) => p === 0)) return false;
    if (address.isIPv4MappedAddress()) return address.toIPv4Address().range() === "unicast";
  }
  return address.range() === "unicast";
}

const checkedLookup: typeof dns.lookup = ((
  hostname: string,
  options: dns.LookupOptions,
  callback: (...a: unknown[]) => void,
) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses: dns.LookupAddress[]) => {
    if (err) return callback(err);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked)
      return callback(new BlockedAddressError(`${hostname} resolves to a non-public address (${blocked.address})`));
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}) as typeof dns.lookup;

const g = globalThis as unknown as { __watchGuardedAgents?: { public: Agent; any: Agent } };
const agents = () =>
  (g.__watchGuardedAgents ??= {
    public: new Agent({ connect: { lookup: checkedLookup, timeout: 10_000 } }),
    any: new Agent({ connect: { timeout: 10_000 } }),
  });

export type GuardedResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

export async function guardedFetch(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeoutMs?: number;
    maxBytes?: number;
    allowPrivate?: boolean;
  } = {},
): Promise<GuardedResponse> {
  const target = new URL(url);
  const literal = target.hostname.replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(literal) && !isPublicAddress(literal) && !init.allowPrivate)
    throw new BlockedAddressError(`${literal} is not a public address`);
  const timeoutMs = init.timeoutMs ?? 10_000;
  const res = await request(target, {
    method: (init.method ?? "GET") as "GET",
    headers: init.headers,
    body: init.body,
    dispatcher: init.allowPrivate ? agents().any : agents().public,
    maxRedirections: 0,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const maxBytes = init.maxBytes ?? 1024 * 1024;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.length;
    if (size > maxBytes) {
      res.body.destroy();
      break;
    }
    chunks.push(chunk as Buffer);
  }
  return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") };
}
