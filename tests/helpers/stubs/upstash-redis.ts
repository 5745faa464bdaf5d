/**
 * A real Redis (redis-server on a free port) behind a small Upstash-REST-compatible proxy, so the server's
 * @upstash/ratelimit client runs unchanged against it (no Upstash-compatible server exists on npm).
 * Protocol: POST / (one command), /pipeline and /multi-exec (command lists), Bearer token, and
 * `Upstash-Encoding: base64` answers. Upstash-only script flags (`#!lua flags=…`) are stripped for Redis 7.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Redis from "ioredis";
import { freePort } from "../server";

export const hasRedisServer = () => spawnSync("redis-server", ["--version"]).status === 0;

export async function startRedisServer() {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("Ready to accept connections")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
  child.stdout!.resume();
  const client = new Redis({ port, host: "127.0.0.1" });
  return {
    client,
    stop: async () => {
      client.disconnect();
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
const stripFlags = (script: string) => script.replace(/^#!lua[^\n]*\n/, "");

function encode(value: unknown): unknown {
  if (typeof value === "string") return value === "OK" ? value : Buffer.from(value).toString("base64");
  if (Array.isArray(value)) return value.map(encode);
  return value;
}

export async function startUpstashProxy(redis: Redis, token = "test-token") {
  const shaOfStripped = new Map<string, string>();
  async function run(command: unknown[]): Promise<unknown> {
    const [name, ...args] = command.map(String);
    const cmd = name!.toLowerCase();
    const load = cmd === "script" && args[0]?.toLowerCase() === "load";
    if (cmd === "eval" || load) {
      const at = load ? 1 : 0;
      const original = args[at]!;
      shaOfStripped.set(sha1(original), sha1(stripFlags(original)));
      args[at] = stripFlags(original);
      const result = await redis.call(name!, ...args);
      // The client addresses the script by the hash of the text it sent.
      return load ? sha1(original) : result;
    }
    if (cmd === "evalsha") args[0] = shaOfStripped.get(args[0]!) ?? args[0]!;
    return redis.call(name!, ...args);
  }
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", async () => {
      const reply = (status: number, json: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
      if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: "Unauthorized" });
      const base64 = (req.headers["upstash-encoding"] ?? "").toString().toLowerCase() === "base64";
      const wrap = async (command: unknown[]) => {
        try {
          const result = await run(command);
          return { result: base64 ? encode(result) : result };
        } catch (e) {
          return { error: (e as Error).message };
        }
      };
      const parsed = JSON.parse(body || "[]") as unknown[];
      if (req.url === "/pipeline" || req.url === "/multi-exec")
        return reply(200, await Promise.all((parsed as unknown[][]).map(wrap)));
      const one = await wrap(parsed);
      reply("error" in one ? 400 : 200, one);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, token, close: () => new Promise<void>((r) => server.close(() => r())) };
}
