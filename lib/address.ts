/** Which IP addresses are public: shared by the address-checked client and the check of a URL a user typed. */
import ipaddr from "ipaddr.js";

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
