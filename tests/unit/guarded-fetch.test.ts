/** Outbound requests to user-supplied URLs never reach internal addresses (WEBHOOK_ALLOW_PRIVATE unset here). */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { BlockedAddressError, guardedFetch, isPublicAddress } from "@/server/net/guarded-fetch";
import { isPrivateHost } from "@/channels/kit/urls";
import { parseNotifications } from "@/server/tasks/notifications";

describe("SSRF guard", () => {
  it("classifies addresses", () => {
    for (const ip of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
    ])
      expect(isPublicAddress(ip), ip).toBe(false);
    for (const ip of ["93.184.216.34", "2606:4700::1111"]) expect(isPublicAddress(ip), ip).toBe(true);
    expect(isPrivateHost("localhost")).toBe(true);
    expect(isPrivateHost("[::1]")).toBe(true);
    expect(isPrivateHost("example.com")).toBe(false);
  });

  it("refuses to connect to loopback, by literal address and by a name that resolves there", async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => (hits++, res.end("ok")));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    await expect(guardedFetch(`http://127.0.0.1:${port}/`)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(guardedFetch(`http://localhost:${port}/`)).rejects.toThrow(/non-public address/);
    await expect(guardedFetch("http://169.254.169.254/latest/meta-data/")).rejects.toBeInstanceOf(BlockedAddressError);
    expect(hits).toBe(0);
    server.close();
  });

  it("rejects private and plain-http webhook configs at creation", () => {
    expect(() => parseNotifications([{ type: "webhook", url: "http://example.com/hook" }])).toThrow(/must use https/);
    expect(() => parseNotifications([{ type: "webhook", url: "https://10.0.0.5/hook" }])).toThrow(/private/);
    expect(() => parseNotifications([{ type: "webhook", url: "https://user:pw@example.com/hook" }])).toThrow(
      /credentials/,
    );
    expect(parseNotifications([{ type: "webhook", url: "https://example.com/hook" }])).toEqual([
      { type: "webhook", url: "https://example.com/hook", method: "POST", headers: {} },
    ]);
  });
});
