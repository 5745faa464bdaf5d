/**
 * What authentication needs a real server for: the front of SERVICE_NOAUTH=1 (the client address it records, loopback
 * Host names only, no cross-site writes), TRUST_PROXY, and a flood of made-up API keys. The rest of authentication is
 * tested in-process (tests/service/auth.test.ts).
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { startServer, type RunningServer } from "../helpers/server";

/** A GET with a Host header of our choosing (fetch does not let a caller set one). */
function getWithHost(base: string, path: string, host: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const { hostname, port } = new URL(base);
    http
      .get({ hostname, port, path, headers: { host } }, (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, text }));
      })
      .on("error", reject);
  });
}

/**
 * One server with SERVICE_NOAUTH=1 for the key flood and the mode's front, and an hour-long window, so that the flood's
 * failure budget is not reset mid-flood. The flood counts failed keys only: the mode's requests carry none.
 */
let s: RunningServer;
beforeAll(async () => {
  s = await startServer({ SERVICE_NOAUTH: "1", RATE_LIMIT_WINDOW_MS: "3600000" });
});
afterAll(async () => {
  await s?.stop();
});

describe("API keys", () => {
  it(
    "a flood of made-up keys sharing a real key's lookup id ends in 429s, health keeps answering, and the real key keeps working (timings: npm run bench:key-flood)",
    { timeout: 120_000 },
    async () => {
      const { key } = (await call("POST", "/auth/api-keys", { base: s.url, body: { name: "k" } })).body;
      const me = (k: string) => call("GET", "/auth/me", { base: s.url, auth: k });
      expect((await me(key)).status).toBe(200);
      const letters = "abcdefghijklmnopqrstuvwxyz";
      const madeUp = () =>
        key.slice(0, 11) + Array.from({ length: 24 }, () => letters[Math.floor(Math.random() * 26)]).join("");

      const health = () => call("GET", "/api/health", { base: s.url });
      await health();
      let flooding = true;
      const probe = (async () => {
        while (flooding) {
          expect((await health()).status).toBe(200);
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const statuses: number[] = [];
      for (let wave = 0; wave < 40; wave++) {
        statuses.push(...(await Promise.all(Array.from({ length: 5 }, () => me(madeUp()).then((r) => r.status)))));
        expect((await me(key)).status, `the real key after wave ${wave}`).toBe(200);
        await new Promise((r) => setTimeout(r, 20));
      }
      flooding = false;
      await probe;

      expect(statuses.filter((st) => st === 401)).toHaveLength(20);
      expect(statuses.slice(20)).toEqual(Array(180).fill(429));
      const refused = await me(madeUp());
      expect(refused.status).toBe(429);
      expect(refused.body.detail).toMatch(/^Rate limit exceeded\. Try again in \d+ seconds\.$/);
      for (const h of ["retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
        expect(refused.headers.get(h), h).not.toBeNull();
      expect((await me(key)).status).toBe(200);
    },
  );
});

describe("server modes", () => {
  it("SERVICE_NOAUTH=1: loopback requests without credentials act as the test user", async () => {
    expect(s.output()).toMatch(/SERVICE_NOAUTH=1/);
    expect((await call("GET", "/auth/me", { base: s.url })).body.email).toBe("test@localhost");
    // The front writes the client address over whatever the client claims.
    const spoofed = await call("GET", "/auth/me", {
      base: s.url,
      headers: { "x-forwarded-for": "1.2.3.4", "x-watch-client-ip": "8.8.8.8" },
    });
    expect(spoofed.status).toBe(200);

    // DNS rebinding: a page on another name that resolves here must not borrow the mode.
    const rebound = await getWithHost(s.url, "/api/v1/webhooks/secret", "evil.example");
    expect(rebound.status).toBe(421);
    expect(JSON.parse(rebound.text).detail).toMatch(/SERVICE_NOAUTH/);
    expect((await getWithHost(s.url, "/dashboard", `evil.example:${s.port}`)).status).toBe(421);
    for (const host of [`localhost:${s.port}`, `127.0.0.1:${s.port}`, `app.localhost:${s.port}`, `[::1]:${s.port}`])
      expect((await getWithHost(s.url, "/api/v1/webhooks/secret", host)).text, host).toContain("whsec_");

    // Cross-site browser writes: a "simple" POST any page can send, and Fetch Metadata's verdict.
    const count = async () => (await call("GET", "/api/v1/tasks", { base: s.url })).body.length;
    const before = await count();
    const csrf = await call("POST", "/api/v1/tasks?search_query=x", {
      base: s.url,
      rawBody: "x",
      headers: { "content-type": "text/plain", origin: "https://evil.example" },
    });
    expect(csrf.status).toBe(403);
    expect(csrf.body.detail).toMatch(/^Cross-site request refused/);
    for (const site of ["cross-site", "same-site"]) {
      const r = await call("POST", "/api/v1/tasks", {
        base: s.url,
        body: { search_query: "x" },
        headers: { "sec-fetch-site": site },
      });
      expect(r.status, site).toBe(403);
    }
    expect(
      (
        await call("DELETE", "/api/v1/tasks/00000000-0000-0000-0000-000000000000", {
          base: s.url,
          headers: { origin: "null" },
        })
      ).status,
    ).toBe(403);
    expect(await count()).toBe(before);
    // The server's own pages, the address bar, and clients that are not browsers (no Origin, no Sec-Fetch-Site).
    for (const headers of <Record<string, string>[]>[
      { origin: s.url },
      { "sec-fetch-site": "same-origin", origin: s.url },
      { "sec-fetch-site": "none" },
      {},
    ])
      expect(
        (await call("POST", "/api/v1/tasks", { base: s.url, body: { search_query: "x" }, headers })).status,
        JSON.stringify(headers),
      ).toBe(200);
    expect(
      (await call("GET", "/api/v1/tasks", { base: s.url, headers: { "sec-fetch-site": "cross-site" } })).status,
    ).toBe(200);
  });

  it(
    "without SERVICE_NOAUTH, loopback requests need credentials; TRUST_PROXY=1: the client is the rightmost X-Forwarded-For entry, entries left of it and x-watch-client-ip change nothing",
    { timeout: 120_000 }, // a server of its own: tens of seconds on a busy machine
    async () => {
      // An hour-long window: the five joins per window must not straddle two on a busy machine.
      const proxied = await startServer({ TRUST_PROXY: "1", RATE_LIMIT_WINDOW_MS: "3600000" });
      try {
        expect((await call("GET", "/auth/me", { base: proxied.url })).status).toBe(401);
        let n = 0;
        const join = (forwardedFor: string) =>
          call("POST", "/api/v1/public/waitlist", {
            base: proxied.url,
            body: { email: `xff${n}@example.com` },
            headers: { "x-forwarded-for": forwardedFor, "x-watch-client-ip": `10.9.9.${n++}` },
          }).then((r) => r.status);
        const forged = [];
        for (let i = 0; i < 6; i++) forged.push(await join(`198.51.100.${i}, 203.0.113.7`));
        expect(forged).toEqual([200, 200, 200, 200, 200, 429]);
        expect(await join("203.0.113.7")).toBe(429);
        expect(await join("203.0.113.7, 203.0.113.8")).toBe(200);
      } finally {
        await proxied.stop();
      }
      await expect(startServer({ TRUST_PROXY: "10.0.0.0/33" })).rejects.toThrow(
        /TRUST_PROXY: '10\.0\.0\.0\/33' is not an IP address or CIDR range/,
      );
    },
  );
});
