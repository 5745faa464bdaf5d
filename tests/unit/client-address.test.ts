/** The client address the front records (TRUST_PROXY hop selection) and the loopback tests of SERVICE_NOAUTH. */
import { describe, expect, it } from "vitest";
import { clientAddress, isLoopbackAddress, isLoopbackHost, parseTrustProxy } from "@/server/net/client-address.mjs";

describe("TRUST_PROXY", () => {
  it("parses hop counts and trusted ranges, and refuses anything else", () => {
    for (const off of [undefined, "", "0", "false", " "]) expect(parseTrustProxy(off), String(off)).toBeNull();
    expect(parseTrustProxy("1")).toEqual({ hops: 1 });
    expect(parseTrustProxy("true")).toEqual({ hops: 1 });
    expect(parseTrustProxy("3")).toEqual({ hops: 3 });
    const list = parseTrustProxy("10.0.0.0/8, 127.0.0.1,fd00::/8,::1");
    expect(list && "ranges" in list && list.ranges.map(([a, bits]) => `${a.toString()}/${bits}`)).toEqual([
      "10.0.0.0/8",
      "127.0.0.1/32",
      "fd00::/8",
      "::1/128",
    ]);
    for (const bad of ["yes", "10.0.0.0/33", "10.0.0.0/8,,", "1.2.3", "localhost", "-1", "1.5", "99"])
      expect(() => parseTrustProxy(bad), bad).toThrow(/^TRUST_PROXY: /);
  });

  const cases: [string, string | undefined, string | undefined, string][] = [
    // trust, socket, X-Forwarded-For, expected client
    ["", "203.0.113.9", "1.1.1.1", "203.0.113.9"],
    ["", "::ffff:127.0.0.1", undefined, "127.0.0.1"],
    ["1", "10.0.0.2", undefined, "10.0.0.2"],
    ["1", "10.0.0.2", "203.0.113.7", "203.0.113.7"],
    // Entries left of the proxy's own are the client's to write: they never matter.
    ["1", "10.0.0.2", "127.0.0.1, 8.8.8.8, 203.0.113.7", "203.0.113.7"],
    ["true", "10.0.0.2", " 203.0.113.7 ", "203.0.113.7"],
    ["2", "10.0.0.2", "6.6.6.6, 203.0.113.7, 10.0.0.3", "203.0.113.7"],
    // A chain shorter than the hop count: the leftmost is the furthest known.
    ["3", "10.0.0.2", "203.0.113.7", "203.0.113.7"],
    ["1", "10.0.0.2", "2001:db8::1", "2001:db8::1"],
    ["1", "10.0.0.2", "[2001:db8::1]:443", "2001:db8::1"],
    ["1", "10.0.0.2", "203.0.113.7:5123", "203.0.113.7"],
    ["1", "10.0.0.2", "::ffff:203.0.113.7", "203.0.113.7"],
    // Malformed entries stop at the last hop a trusted proxy vouches for.
    ["1", "10.0.0.2", "203.0.113.7, garbage", "10.0.0.2"],
    ["2", "10.0.0.2", "garbage, 10.0.0.3", "10.0.0.3"],
    ["1", "10.0.0.2", "1.2.3.4,", "10.0.0.2"],
    ["10.0.0.0/8", "10.0.0.2", "6.6.6.6, 203.0.113.7, 10.0.0.3, 10.0.0.4", "203.0.113.7"],
    // Not from a trusted proxy: its X-Forwarded-For is ignored.
    ["10.0.0.0/8", "203.0.113.9", "1.1.1.1", "203.0.113.9"],
    ["10.0.0.0/8,fd00::/8", "fd00::5", "2001:db8::7, fd00::6", "2001:db8::7"],
    ["127.0.0.1", "::ffff:127.0.0.1", "203.0.113.7", "203.0.113.7"],
    // Every entry trusted: the leftmost.
    ["10.0.0.0/8", "10.0.0.2", "10.0.0.9, 10.0.0.3", "10.0.0.9"],
  ];
  it.each(cases)("TRUST_PROXY=%j, socket %s, X-Forwarded-For %j → %s", (trust, socket, xff, expected) => {
    expect(clientAddress(socket, xff, parseTrustProxy(trust))).toBe(expected);
  });
});

describe("loopback", () => {
  it("tells loopback addresses and Host names from others", () => {
    for (const a of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ["10.0.0.1", "8.8.8.8", "::2", "localhost", "", null, undefined])
      expect(isLoopbackAddress(a), String(a)).toBe(false);
    for (const h of [
      "localhost",
      "localhost:8000",
      "LOCALHOST:1",
      "app.localhost:3000",
      "127.0.0.1:8000",
      "127.1.2.3",
      "[::1]:8000",
      "[::1]",
    ])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of [
      "evil.example",
      "evil.example:8000",
      "localhost.evil.example",
      "127.0.0.1.nip.io",
      "0x7f.1",
      "127.1",
      "[::2]:80",
      "",
      undefined,
    ])
      expect(isLoopbackHost(h), String(h)).toBe(false);
  });
});
