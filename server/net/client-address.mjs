/**
 * Who is on the other end of a request, decided from the connection alone: the front (scripts/front.mjs)
 * uses this for every request, server/env.ts to validate TRUST_PROXY, server/auth for the loopback check.
 * Plain JavaScript because the front runs unbundled, before Next.js is loaded.
 */
import ipaddr from "ipaddr.js";

/** A bare, normalised address (IPv4-mapped IPv6 as IPv4), or null when `entry` is not one. */
export function normalizeAddress(entry) {
  // Some proxies write ports: "203.0.113.7:5123", "[2001:db8::1]:443".
  const s = String(entry ?? "")
    .trim()
    .replace(/^\[([^\]]*)\](?::\d+)?$|^([\d.]+):\d+$/, "$1$2");
  if (!ipaddr.IPv4.isValidFourPartDecimal(s) && !ipaddr.IPv6.isValid(s)) return null;
  return ipaddr.process(s).toString();
}

/**
 * The client an address stands for, as per-IP limits count it: an IPv6 address by its /64 (the block one subscriber,
 * one machine even, is given: counting each address would multiply every limit by 2^64), an IPv4 address as itself.
 */
export function clientGroup(address) {
  const normalized = normalizeAddress(address);
  if (normalized === null) return String(address ?? "");
  const parsed = ipaddr.parse(normalized);
  if (parsed.kind() !== "ipv6") return normalized;
  return `${new ipaddr.IPv6([...parsed.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

export function isLoopbackAddress(address) {
  const normalized = normalizeAddress(address);
  return normalized !== null && ipaddr.parse(normalized).range() === "loopback";
}

/** A Host header naming this machine: localhost, *.localhost, 127.0.0.0/8 or [::1], with any port. */
export function isLoopbackHost(host) {
  const h = String(host ?? "").toLowerCase();
  const name = h.startsWith("[") ? h : h.replace(/:\d+$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  return (name.startsWith("[") || ipaddr.IPv4.isValidFourPartDecimal(name)) && isLoopbackAddress(name);
}

/**
 * A non-GET request a browser sent from another origin (Fetch Metadata, else Origin; neither: not a browser).
 * @param {string | undefined} method
 * @param {(name: string) => string | string[] | undefined | null} header a request header by lower-case name
 */
export function isCrossSiteWrite(method, header) {
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return false;
  const site = header("sec-fetch-site");
  if (site !== undefined && site !== null) return site !== "same-origin" && site !== "none";
  const origin = header("origin");
  if (origin === undefined || origin === null) return false;
  return !URL.canParse(String(origin)) || new URL(String(origin)).host !== String(header("host")).toLowerCase();
}

/**
 * TRUST_PROXY: unset, "" , "0" or "false": off (the socket's address is the client). "1" or "true": one trusted
 * proxy in front of the server. A number n: n proxies. Otherwise a comma-separated list of addresses and CIDR
 * ranges of trusted proxies. Throws with a readable message on anything else.
 * @returns {null | { hops: number } | { ranges: [import("ipaddr.js").IPv4 | import("ipaddr.js").IPv6, number][] }}
 */
export function parseTrustProxy(value) {
  const v = String(value ?? "").trim();
  if (v === "" || v === "0" || v === "false") return null;
  if (v === "true") return { hops: 1 };
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > 32) throw new Error(`TRUST_PROXY: ${v} proxy hops is not a plausible chain (at most 32)`);
    return { hops };
  }
  const ranges = v.split(",").map((entry) => {
    const e = entry.trim();
    try {
      if (e.includes("/")) {
        const [addr, bits] = ipaddr.parseCIDR(e);
        return addr.kind() === "ipv6" && addr.isIPv4MappedAddress() ? [addr.toIPv4Address(), bits - 96] : [addr, bits];
      }
      const addr = normalizeAddress(e);
      if (addr === null) throw new Error("not an address");
      const parsed = ipaddr.parse(addr);
      return [parsed, parsed.kind() === "ipv4" ? 32 : 128];
    } catch {
      throw new Error(
        `TRUST_PROXY: '${e}' is not an IP address or CIDR range (expected a hop count such as 1, or trusted proxies such as 10.0.0.0/8,fd00::/8)`,
      );
    }
  });
  return { ranges };
}

function trusted(address, ranges) {
  const parsed = ipaddr.parse(address);
  return ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
}

/**
 * Whether a connection from `socketAddress` comes from a trusted proxy (TRUST_PROXY), carrying many clients' requests.
 * With a hop count every connection is taken to come from one.
 * @param {string | undefined} socketAddress
 * @param {ReturnType<typeof parseTrustProxy>} trust
 */
export function isTrustedProxy(socketAddress, trust) {
  if (!trust) return false;
  if ("hops" in trust) return true;
  const address = normalizeAddress(socketAddress);
  return address !== null && trusted(address, trust.ranges);
}

/**
 * The client's address: the socket's, or with trusted proxies the rightmost X-Forwarded-For entry that no
 * trusted proxy wrote (entries further left are whatever the client sent). With n hops, that is the n-th
 * entry from the right; with ranges, the first entry from the right outside them (and the socket's address
 * when the socket itself is not a trusted proxy). A malformed entry stops the walk at the last proxy
 * that is vouched for, so a client can never choose its address by writing garbage.
 * @param {string | undefined} socketAddress
 * @param {string | string[] | undefined} forwardedFor
 * @param {ReturnType<typeof parseTrustProxy>} trust
 */
export function clientAddress(socketAddress, forwardedFor, trust) {
  let current = normalizeAddress(socketAddress) ?? String(socketAddress ?? "");
  if (!trust || !forwardedFor || ("ranges" in trust && !trusted(current, trust.ranges))) return current;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor).split(",");
  for (let i = hops.length - 1, hop = 1; i >= 0; i--, hop++) {
    const address = normalizeAddress(hops[i]);
    if (address === null) return current;
    current = address;
    if ("hops" in trust ? hop >= trust.hops : !trusted(address, trust.ranges)) return current;
  }
  // Every entry is a trusted proxy (or the chain is shorter than the hop count): the leftmost is the best we know.
  return current;
}
