/**
 * What happens before any route runs, on the built server: the front's body cap (a declared length at once, a chunked
 * body as it crosses 1 MB, memory flat), at most 256 connections per client address, a client that hangs up mid-body,
 * Next.js's answers to odd paths and methods; and the embedded database across SIGKILL, SIGTERM, a second server on
 * the same data and a port already taken.
 * What the routes do with bad input is tested in-process (tests/service/bad-input.test.ts).
 */
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, server } from "../helpers/api";
import { oneOverCap } from "../helpers/connections";
import { startAgain, startServer, type RunningServer } from "../helpers/server";
import { BAD_PATH_IDS, operationsOf, type Operation } from "../helpers/operations";

/** POSTs `total` bytes as a chunked body (no Content-Length) and resolves with the answer, whenever it comes. */
function streamBody(port: number, path: string, type: string, total: number) {
  return new Promise<{ status?: number; body: string; ms: number }>((resolve) => {
    const started = Date.now();
    const req = http.request(
      { host: "127.0.0.1", port, path, method: "POST", headers: { "content-type": type } },
      (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode, body, ms: Date.now() - started }));
      },
    );
    req.on("error", () => resolve({ body: "", ms: Date.now() - started }));
    const chunk = Buffer.alloc(64 * 1024, "a");
    let sent = 0;
    const pump = () => {
      while (sent < total && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

/** Sends raw request head bytes and resolves with what comes back before the server closes (or 2 s). */
function rawExchange(port: number, head: string) {
  return new Promise<string>((resolve) => {
    let out = "";
    const socket = net.connect(port, "127.0.0.1", () => socket.write(head));
    socket.on("data", (d) => (out += d));
    socket.on("close", () => resolve(out));
    socket.on("error", () => resolve(out));
    setTimeout(() => (socket.destroy(), resolve(out)), 2000);
  });
}

async function operations(): Promise<Operation[]> {
  return operationsOf((await call("GET", "/api/v1/openapi.json")).body);
}

describe("before any route", () => {
  it("a JSON body over 1 MB is refused with 413 {detail}", async () => {
    const u = await newUser();
    const huge = await call("POST", "/api/v1/tasks", { auth: u.token, body: { search_query: "x".repeat(1_100_000) } });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ detail: "Request body too large" });
  });

  it("odd ids in paths, HEAD and OPTIONS never get a 5xx", async () => {
    const u = await newUser();
    const failures: string[] = [];
    for (const op of await operations())
      for (const id of op.path.includes("{id}") ? BAD_PATH_IDS : []) {
        const path = op.path.replace("{id}", id);
        const r = await call(op.method, path, { auth: u.token });
        if (r.status >= 500) failures.push(`${op.method} ${path.slice(0, 80)} -> ${r.status} ${r.text.slice(0, 200)}`);
      }
    for (const method of ["HEAD", "OPTIONS"]) {
      const r = await call(method, "/api/v1/tasks", { auth: u.token });
      if (r.status >= 500) failures.push(`${method} /api/v1/tasks -> ${r.status}`);
    }
    expect(failures).toEqual([]);
  });

  it("refuses a declared Content-Length over 1 MB before the body is sent", async () => {
    const { port } = new URL(server().url);
    const head = (extra: string) =>
      `POST /api/v1/public/waitlist HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500000000\r\n${extra}\r\n`;
    for (const answer of [
      await rawExchange(Number(port), head("")),
      await rawExchange(Number(port), head("Expect: 100-continue\r\n")),
    ]) {
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).not.toMatch(/100 Continue/);
      expect(answer).toMatch(/connection: close/i);
      expect(answer.endsWith('{"detail":"Request body too large"}')).toBe(true);
    }
  });
});

/** The file's own server: the front's tests below, then the durability test, which kills it (starts cost seconds). */
let own: RunningServer;
beforeAll(async () => {
  own = await startServer({ SERVICE_NOAUTH: "1" });
});
afterAll(async () => {
  await own?.stop();
});
/** Neither a client gone mid-body nor a refused body is an error worth a log line. */
const quietSoFar = () => expect(own.output()).not.toMatch(/Error|⨯/);

describe("a server of its own", () => {
  afterAll(quietSoFar);

  it("takes a client that hangs up mid-body quietly", { timeout: 60_000 }, async () => {
    await new Promise<void>((resolve) => {
      const socket = net.connect(own.port, "127.0.0.1", () => {
        socket.write(
          'POST /api/v1/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
        );
        setTimeout(() => (socket.destroy(), resolve()), 300);
      });
    });
    expect((await call("POST", "/api/v1/tasks", { base: own.url, body: { search_query: "after" } })).status).toBe(200);
  });

  it(
    "refuses chunked bodies past 1 MB while they stream, on every route, and the server's memory stays flat",
    { timeout: 60_000 },
    async () => {
      const rssMb = () =>
        Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${own.process.pid}/status`, "utf8"))![1]) / 1024;
      const before = rssMb();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 10);
      const answers = await Promise.all([
        streamBody(own.port, "/api/v1/public/waitlist", "application/json", 80e6),
        streamBody(own.port, "/api/trpc/tasks.create", "application/json", 80e6),
        streamBody(own.port, "/waitlist", "application/x-www-form-urlencoded", 80e6),
      ]);
      clearInterval(sampler);
      for (const a of answers) {
        expect(a.status).toBe(413);
        expect(JSON.parse(a.body)).toEqual({ detail: "Request body too large" });
        expect(a.ms).toBeLessThan(5000);
      }
      expect(peak - before).toBeLessThan(48);
      expect((await call("GET", "/api/health", { base: own.url })).status).toBe(200);
      // A body within the cap, chunked, still reaches the routes whole.
      const joined = await fetch(`${own.url}/api/v1/public/waitlist`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new Blob([JSON.stringify({ email: "chunked@example.com" })]).stream(),
        duplex: "half",
      } as RequestInit);
      expect(joined.status).toBe(200);
    },
  );

  // The server's own client address is not a trusted proxy's here (no TRUST_PROXY, unlike the shared server).
  it("holds at most 256 connections per client address: the next is answered 429 and closed; once some close, new ones are served", async () => {
    const { answer, sockets } = await oneOverCap(own.port, 256);
    try {
      expect(answer).toMatch(/^HTTP\/1\.1 429 /);
      for (const s of sockets.splice(0, 10)) s.destroy();
      await new Promise((r) => setTimeout(r, 200));
      expect((await call("GET", "/api/health", { base: own.url })).status).toBe(200);
    } finally {
      sockets.forEach((s) => s.destroy());
    }
  });
});

describe("embedded database durability", () => {
  it(
    "survives SIGKILL during writes, shuts down cleanly on SIGTERM, refuses a second server on the same data or port",
    { timeout: 300_000 }, // four starts, each tens of seconds on a busy machine
    async () => {
      quietSoFar();
      const first = own;
      const created: string[] = [];
      for (let i = 0; i < 5; i++)
        created.push(
          (await call("POST", "/api/v1/tasks", { base: first.url, body: { search_query: `q${i}` } })).body.id,
        );
      const burst = Array.from({ length: 20 }, (_, i) =>
        call("POST", "/api/v1/tasks", { base: first.url, body: { search_query: `burst${i}` } }).catch(() => null),
      );
      await new Promise((r) => setTimeout(r, 30));
      await first.kill();
      await Promise.all(burst);

      const second = await startAgain(first, { SERVICE_NOAUTH: "1" });
      const list = await call("GET", "/api/v1/tasks", { base: second.url });
      expect(list.status).toBe(200);
      expect(list.body.map((t: any) => t.id)).toEqual(expect.arrayContaining(created));
      expect((await call("GET", "/api/health", { base: second.url })).body.database).toBe("ok");

      if (!second.databaseUrl) {
        await expect(startServer({ SERVICE_NOAUTH: "1" }, { dataDir: second.dataDir })).rejects.toThrow(
          /in use by process/,
        );
      }
      // A port already taken ends the process with the reason instead of leaving one that never serves.
      await expect(startServer({ SERVICE_NOAUTH: "1" }, { port: second.port })).rejects.toThrow(
        /server exited \(1\)[^]*Cannot serve on 127\.0\.0\.1:\d+: listen EADDRINUSE/,
      );

      const slow = call("GET", "/api/v1/tasks", { base: second.url });
      const code = await second.stop();
      expect((await slow).status).toBe(200);
      expect(code).toBe(0);
      expect(second.output()).toMatch(/stopped/);

      const third = await startAgain(second, { SERVICE_NOAUTH: "1" });
      expect((await call("GET", "/api/v1/tasks", { base: third.url })).body.length).toBe(list.body.length);
      await third.stop();
    },
  );
});
