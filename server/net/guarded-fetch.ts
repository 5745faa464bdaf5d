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
import { isPublicAddress } from "../../lib/address";

export class BlockedAddressError extends Error {}

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
