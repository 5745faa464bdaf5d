#!/usr/bin/env node
/**
 * `npm start`: builds when there is no production build, then serves dashboard + API.
 * A small node:http server in front of Next.js: it records the client's real address for per-IP limits and
 * the loopback-only development mode (Next would trust a client-sent X-Forwarded-For), caps body sizes, and
 * shuts down gracefully on SIGTERM (in-flight requests finish, then the database is closed).
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
process.env.NODE_ENV = "production";

if (!fs.existsSync(path.join(root, ".next", "BUILD_ID")) || process.argv.includes("--build")) {
  console.log("No production build found: running `next build` first (once).");
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const port = Number(process.env.PORT ?? 8000);
const hostname = process.env.HOSTNAME ?? "0.0.0.0";
const trustProxy = process.env.TRUST_PROXY === "1" || process.env.TRUST_PROXY === "true";

const { default: next } = await import("next");
const app = next({ dev: false, dir: root, hostname, port });
await app.prepare();
const handle = app.getRequestHandler();

function clientIp(req) {
  const socketIp = req.socket.remoteAddress ?? "";
  if (!trustProxy) return socketIp;
  const forwarded = req.headers["x-forwarded-for"];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
  return first || socketIp;
}

/** Headers for every response (API, RSS, static files, errors); pages add their Content-Security-Policy (proxy.ts). */
function setSecurityHeaders(res) {
  res.setHeader("x-content-type-options", "nosniff");
  res.setHeader("referrer-policy", "strict-origin-when-cross-origin");
}

// Handlers still running after their client has gone: shutdown gives them a moment before closing the database
// (one streaming to a closed socket may never settle).
const inFlight = new Set();
const server = http.createServer((req, res) => {
  req.headers["x-watch-client-ip"] = clientIp(req);
  setSecurityHeaders(res);
  const handling = handle(req, res).finally(() => inFlight.delete(handling));
  inFlight.add(handling);
});
server.keepAliveTimeout = 65_000;
server.listen(port, hostname, async () => {
  // The first request runs instrumentation.ts (database, migrations, scheduler); make it ours.
  const res = await fetch(`http://127.0.0.1:${port}/api/health`).catch((e) => e);
  if (!(res instanceof Response) || !(res.headers.get("content-type") ?? "").includes("json")) {
    console.error("Start-up failed (see the error above).");
    process.exit(1);
  }
  console.log(`Watch ready on http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`);
});

let stopping = false;
async function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: finishing in-flight requests`);
  const force = setTimeout(() => process.exit(1), 25_000).unref();
  await new Promise((resolve) => {
    server.close(resolve);
    // Keep-alive connections close as soon as their in-flight request is answered.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.once("close", () => clearInterval(sweep));
  });
  await Promise.race([Promise.allSettled(inFlight), new Promise((resolve) => setTimeout(resolve, 2000))]);
  await globalThis.__watchStopServices?.().catch((e) => console.error("shutdown failed", e));
  clearTimeout(force);
  console.log("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
