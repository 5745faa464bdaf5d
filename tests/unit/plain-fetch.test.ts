/**
 * The model providers' fetch (server/net/plain-fetch.ts) answers as fetch does for the calls the SDKs make: status,
 * headers (repeated ones too), the body, no body where none may be, redirects followed, and fetch's failures (the
 * signal's reason; "fetch failed" with the network error as its cause, which the AI SDK retries).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainFetch } from "@/server/net/plain-fetch";

let server: http.Server;
let base: string;
const seen: { method?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method, headers: req.headers, body });
      if (req.url === "/empty") return res.writeHead(204).end();
      if (req.url === "/moved") return res.writeHead(302, { location: "/json" }).end();
      if (req.url === "/slow") return void setTimeout(() => res.end("late"), 2_000);
      res.writeHead(201, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"], "x-request-id": "r1" });
      res.end(JSON.stringify({ ok: true, echo: body }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

describe("plainFetch", () => {
  it("sends the method, headers and body, and answers status, headers and body", async () => {
    const res = await plainFetch(`${base}/json`, {
      method: "post",
      headers: new Headers({ "Content-Type": "application/json", Authorization: "Bearer k" }),
      body: JSON.stringify({ q: "é" }),
    });
    expect(seen.at(-1)).toMatchObject({
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: '{"q":"é"}',
    });
    expect(res.status).toBe(201);
    expect(res.statusText).toBe("Created");
    expect(res.ok).toBe(true);
    expect(res.headers.get("x-request-id")).toBe("r1");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await res.json()).toEqual({ ok: true, echo: '{"q":"é"}' });
  });

  it("takes headers as a record or pairs, and a byte body", async () => {
    await plainFetch(new URL(`${base}/json`), { method: "POST", headers: { "X-A": "1" }, body: Buffer.from("bytes") });
    expect(seen.at(-1)).toMatchObject({ headers: { "x-a": "1" }, body: "bytes" });
    await plainFetch(`${base}/json`, { headers: [["x-b", "2"]] });
    expect(seen.at(-1)).toMatchObject({ method: "GET", headers: { "x-b": "2" } });
  });

  it("answers a 204 without a body and follows redirects unless told not to", async () => {
    const empty = await plainFetch(`${base}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    expect((await plainFetch(`${base}/moved`)).status).toBe(201);
    const manual = await plainFetch(`${base}/moved`, { redirect: "manual" });
    expect(manual.status).toBe(302);
    expect(manual.headers.get("location")).toBe("/json");
  });

  it("fails as fetch does", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await plainFetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TypeError);
    expect(refused).toMatchObject({ message: "fetch failed", cause: { code: "ECONNREFUSED" } });

    const timedOut = await plainFetch(`${base}/slow`, { signal: AbortSignal.timeout(50) }).catch((e: unknown) => e);
    expect(timedOut).toMatchObject({ name: "TimeoutError" });
    const controller = new AbortController();
    const aborted = plainFetch(`${base}/slow`, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    expect(await aborted).toMatchObject({ name: "AbortError" });
  });

  it("hands what it does not read itself (a Request, a streamed body) to fetch", async () => {
    const res = await plainFetch(new Request(`${base}/json`, { method: "POST", body: "as a request" }));
    expect(await res.json()).toEqual({ ok: true, echo: "as a request" });
    const streamed = await plainFetch(`${base}/json`, {
      method: "POST",
      body: new Blob(["a blob"]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(await streamed.json()).toEqual({ ok: true, echo: "a blob" });
  });
});
