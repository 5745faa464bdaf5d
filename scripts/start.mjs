#!/usr/bin/env node
/**
 * `npm start`: builds when there is no production build, then serves dashboard + API.
 * `npm run dev` (`--dev`): the Next.js development server (no build, reloads on change) behind the same front.
 * The front (scripts/front.mjs) records the client's real address, guards SERVICE_NOAUTH, caps bodies and cuts off
 * slow clients; this script also shuts down gracefully on SIGTERM: readiness and new requests answer 503 at once,
 * running requests and agent runs get SHUTDOWN_GRACE_MS (30 s) to finish, runs not finished by then resume at the
 * next start (or on another replica), then the database is closed.
 * With SERVER_PROCESSES above 1 this process forks that many such servers and hands them its connections
 * (scripts/processes.mjs); each of them runs the rest of this script as a worker.
 */
import cluster from "node:cluster";
import fs from "node:fs";
import path from "node:path";
import util from "node:util";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import nextEnv from "@next/env";
import { parseTrustProxy } from "../server/net/client-address.mjs";
import { log, logFormat } from "../server/observability/log.mjs";
import { metrics } from "../server/observability/metrics.mjs";
import { connectToPrimary, inWorker, serverProcesses } from "../server/processes.mjs";
import { createFront } from "./front.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
const dev = process.argv.includes("--dev");
process.env.NODE_ENV = dev ? "development" : "production";
// .env files, as Next.js reads them, before the front reads PORT, TRUST_PROXY or SERVICE_NOAUTH (the environment wins).
nextEnv.loadEnvConfig(root, dev, { info() {}, error: console.error });

// One JSON object per line means every line: what Next.js and libraries print goes through the logger too.
if (logFormat() === "json")
  for (const [method, level] of [
    ["log", "info"],
    ["info", "info"],
    ["warn", "warn"],
    ["error", "error"],
    ["debug", "debug"],
  ])
    console[method] = (...args) => log[level](util.format(...args));

let trustProxy;
let processes = 1;
try {
  trustProxy = parseTrustProxy(process.env.TRUST_PROXY);
  // The development server is one process.
  if (!dev) processes = serverProcesses(process.env.SERVER_PROCESSES, process.env.DATABASE_URL);
} catch (e) {
  log.fatal(`Invalid configuration:\n  ${e.message}`);
  process.exit(1);
}
// The same reading as server/env.ts, which refuses any other value at start.
const noauth = process.env.SERVICE_NOAUTH === "1" || process.env.SERVICE_NOAUTH === "true";
const worker = inWorker();

if (!dev && !worker && (!fs.existsSync(path.join(root, ".next", "BUILD_ID")) || process.argv.includes("--build"))) {
  log.info("No production build found: running `next build` first (once).");
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
    stdio: "inherit",
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const port = Number(process.env.PORT ?? 8000);
const hostname = process.env.HOSTNAME ?? "0.0.0.0";
/** As server/env.ts reads it (which refuses a bad value at start). */
const graceMs = Number(process.env.SHUTDOWN_GRACE_MS || 30_000);
/** Where the start-up line says the service is. */
const shownUrl = `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`;
if (processes > 1 && cluster.isPrimary) {
  const { runPrimary } = await import("./processes.mjs");
  runPrimary({ processes, port, hostname, shownUrl, graceMs, trustProxy });
} else await serve();

async function serve() {
  // Request spans, when tracing is on (instrumentation.ts starts the SDK); nothing of OpenTelemetry is loaded otherwise.
  const trace = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
    ? (await import("../server/observability/request-span.mjs")).requestSpan
    : undefined;

  // Next.js runs in this process; server/lifecycle.ts refuses to start without this mark, because without the
  // front nothing would have written the `x-watch-client-ip` that per-IP limits and SERVICE_NOAUTH trust.
  globalThis.__watchFront = true;
  // The runtime's own Date and fetch, before Next.js wraps the global ones (server/db/timestamps.ts reads stored
  // timestamps into that Date; server/net/plain-fetch.ts calls model providers with that fetch).
  globalThis[Symbol.for("watch.nativeDate")] = Date;
  globalThis[Symbol.for("watch.nativeFetch")] = fetch;
  const { default: next } = await import("next");
  const app = next({ dev, dir: root, hostname, port });
  await app.prepare();
  const handle = app.getRequestHandler();

  // Handlers still running after their client has gone: shutdown gives them a moment before closing the database
  // (one streaming to a closed socket may never settle).
  const inFlight = new Set();
  const server = createFront({
    // Validated with the rest of the configuration by server/env.ts.
    headersTimeoutMs: Number(process.env.REQUEST_HEADERS_TIMEOUT_MS || 0) || undefined,
    requestTimeoutMs: Number(process.env.REQUEST_BODY_TIMEOUT_MS || 0) || undefined,
    handle(req, res) {
      const handling = handle(req, res).finally(() => inFlight.delete(handling));
      inFlight.add(handling);
      return handling;
    },
    // The development server's live reload (a WebSocket).
    upgrade: dev ? app.getUpgradeHandler() : undefined,
    noauth,
    trustProxy,
    metricsToken: process.env.METRICS_TOKEN || undefined,
    trace,
    // A worker's connections are counted by its primary, across the workers.
    countConnections: !worker,
  });
  server.keepAliveTimeout = 65_000;
  // Next.js logs an uncaught exception and carries on: a port already taken would leave a server that never serves.
  server.on("error", (e) => {
    log.fatal(`Cannot serve on ${hostname}:${port}: ${e.message}`);
    process.exit(1);
  });
  // A worker gets its connections from the primary, and warms up on a loopback port of its own.
  const listenOn = worker ? { port: 0, host: "127.0.0.1", exclusive: true } : { port, host: hostname };
  server.listen(listenOn, async () => {
    // The first request runs instrumentation.ts (database, migrations, scheduler); make it ours.
    const res = await fetch(`http://127.0.0.1:${server.address().port}/api/health`).catch((e) => e);
    if (!(res instanceof Response) || !(res.headers.get("content-type") ?? "").includes("json")) {
      log.fatal("Start-up failed (see the error above).");
      process.exit(1);
    }
    server.ready();
    if (!worker) return log.info(`Watch ready on ${shownUrl}`);
    process.on("message", (m, socket) => {
      if (m?.type !== "watch:connection" || !socket) return;
      if (m.client)
        socket.once("close", () => process.connected && process.send({ type: "watch:closed", client: m.client }));
      // What the server's own accept would have set: without it, Nagle's algorithm holds small answers back.
      socket.setNoDelay(true);
      server.emit("connection", socket);
      process.send({ type: "watch:taken", id: m.id });
    });
    process.send({ type: "watch:ready" });
  });
  if (worker) {
    // Its metrics, for the primary to add up; the line is open before the first request could ask for them.
    const { registry } = metrics();
    connectToPrimary({ "metrics-json": () => registry.getMetricsAsJSON() });
    process.on("disconnect", () => shutdown("the primary process is gone"));
  }

  let stopping = false;
  async function shutdown(signal) {
    if (stopping) return;
    stopping = true;
    server.drain();
    log.info(
      `${signal}: shutting down: new requests get 503; running requests and agent runs have ${graceMs / 1000} s to finish`,
    );
    const force = setTimeout(() => {
      log.error("shutdown did not finish in time: exiting");
      process.exit(1);
    }, graceMs + 5_000).unref();
    const deadline = Date.now() + graceMs;
    const timeLeft = () => new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())).unref());
    await Promise.all([
      // The engine takes no new run; the running ones finish, the rest resume at the next start.
      globalThis.__watchDrainRuns?.(deadline).catch((e) => log.error({ err: e }, "draining runs failed")),
      Promise.race([Promise.allSettled(inFlight), timeLeft()]),
    ]);
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
    await globalThis.__watchStopServices?.().catch((e) => log.error({ err: e }, "shutdown failed"));
    clearTimeout(force);
    log.info("stopped");
    process.exit(0);
  }
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}
