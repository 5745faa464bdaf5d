/**
 * `npm start` with SERVER_PROCESSES above 1: this process, the primary, serves no request itself. It forks the
 * workers (scripts/start.mjs again, each a whole server on the same PostgreSQL database, with its own engine
 * identity), accepts every connection on PORT and hands each to the next ready worker, once the per-client connection
 * cap, which it holds across the workers, lets it in. It keeps the rate-limit windows of all the workers (when no
 * Upstash store is set) and adds up their metrics for GET /metrics. A worker that dies is replaced. On SIGTERM every
 * worker drains and stops as one process would; the primary exits when they have.
 */
import cluster from "node:cluster";
import net from "node:net";
import promClient from "prom-client";
import { log } from "../server/observability/log.mjs";
import { messenger, WORKER_INDEX } from "../server/processes.mjs";
import { fixedWindows } from "../server/ratelimit/windows.mjs";
import { connectionCap } from "./front.mjs";

/** Written to a connection that arrives while no worker can take it (all of them restarting). */
const NO_WORKER =
  "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

/**
 * @param {{ processes: number, port: number, hostname: string, shownUrl: string, graceMs: number,
 *           trustProxy: ReturnType<typeof import("../server/net/client-address.mjs").parseTrustProxy> }} opts
 */
export function runPrimary({ processes, port, hostname, shownUrl, graceMs, trustProxy }) {
  const windows = fixedWindows();
  const cap = connectionCap(trustProxy);
  // Worker 0 keeps the configured identity, so that runs left pending under it by a one-process start resume.
  const executorId = process.env.WATCH_EXECUTOR_ID || "local";
  /**
   * Each worker by its number: whether it takes connections, how many each client holds open on it, and the
   * connections sent to it that it has not taken yet.
   * @type {Map<number, { worker: import("node:cluster").Worker, line: ReturnType<typeof messenger>, ready: boolean,
   *                      clients: Map<string, number>, sent: Map<number, net.Socket> }>}
   */
  const slots = new Map();
  let started = false;
  let stopping = false;
  let failed = false;
  let turn = 0;
  let connections = 0;

  const readySlots = () => [...slots.values()].filter((s) => s.ready);
  const allExited = () => [...slots.values()].every((s) => s.worker.isDead());

  /** Every ready worker's metrics, added up as one process's (counters and histograms summed). */
  async function metricsOfAll() {
    const each = await Promise.all(readySlots().map((s) => s.line.ask("metrics-json", undefined, 5000)));
    return promClient.AggregatorRegistry.aggregate(each).metrics();
  }

  function release(slot, client) {
    const n = slot.clients.get(client);
    if (!n) return;
    if (n > 1) slot.clients.set(client, n - 1);
    else slot.clients.delete(client);
    cap.release(client);
  }

  function fork(index) {
    const worker = cluster.fork({
      [WORKER_INDEX]: String(index),
      WATCH_EXECUTOR_ID: index === 0 ? executorId : `${executorId}-${index}`,
    });
    const line = messenger(worker, {
      "rate-limit": ({ id, limit, windowMs }) => windows.take(id, limit, windowMs, Date.now()),
      metrics: metricsOfAll,
    });
    /** Connections sent to the worker and not yet taken: the primary keeps its copy of each until then. */
    const sent = new Map();
    const slot = { worker, line, ready: false, clients: new Map(), sent };
    slots.set(index, slot);
    worker.on("message", (m) => {
      if (m?.type === "watch:closed") release(slot, m.client);
      else if (m?.type === "watch:taken") {
        sent.get(m.id)?.destroy();
        sent.delete(m.id);
      } else if (m?.type === "watch:ready") {
        slot.ready = true;
        if (started) log.info(`process ${index} (pid ${worker.process.pid}) ready`);
        else if (!stopping && readySlots().length === processes) listen();
      }
    });
    worker.on("exit", (code, signal) => {
      slot.ready = false;
      for (const client of [...slot.clients.keys()]) while (slot.clients.has(client)) release(slot, client);
      // Sent as it died: closed, so that their clients see it and retry rather than wait.
      for (const socket of sent.values()) socket.destroy();
      sent.clear();
      if (stopping) {
        if (code !== 0) failed = true;
        if (allExited()) finish();
      } else if (!started) {
        log.fatal(`Start-up failed: process ${index} exited (${signal ?? code}; see its error above)`);
        failed = true;
        stop();
      } else {
        log.error(`process ${index} (pid ${worker.process.pid}) exited (${signal ?? code}): starting another`);
        // A second later: one that cannot start (its database gone) is not restarted in a tight loop.
        setTimeout(() => stopping || fork(index), 1000);
      }
    });
  }

  const server = net.createServer({ pauseOnConnect: true }, (socket) => {
    // A client that resets before the hand-over: nothing to do (the primary must not die of it).
    socket.on("error", () => {});
    const live = readySlots();
    if (!live.length) return void socket.end(NO_WORKER);
    const client = cap.admit(socket);
    if (client === false) return;
    const slot = live[turn++ % live.length];
    if (client) slot.clients.set(client, (slot.clients.get(client) ?? 0) + 1);
    const id = connections++;
    slot.sent.set(id, socket);
    // Kept open here until the worker says it has the connection: a worker that dies first would otherwise leave the
    // connection open with no one to serve it.
    slot.worker.send({ type: "watch:connection", id, client }, socket, { keepOpen: true }, (err) => {
      if (!err) return;
      slot.sent.delete(id);
      socket.destroy();
      if (client) release(slot, client);
    });
  });
  server.on("error", (e) => {
    log.fatal(`Cannot serve on ${hostname}:${port}: ${e.message}`);
    failed = true;
    stop();
  });

  function listen() {
    server.listen(port, hostname, () => {
      started = true;
      log.info(`Watch ready on ${shownUrl} (${processes} processes)`);
    });
  }

  function stop() {
    if (stopping) return;
    stopping = true;
    for (const s of slots.values()) if (!s.worker.isDead()) s.worker.process.kill("SIGTERM");
    if (allExited()) return finish();
    setTimeout(() => {
      log.error("shutdown did not finish in time: exiting");
      for (const s of slots.values()) if (!s.worker.isDead()) s.worker.process.kill("SIGKILL");
      process.exit(1);
    }, graceMs + 10_000).unref();
  }

  function finish() {
    server.close();
    log.info("stopped");
    process.exit(failed ? 1 : 0);
  }

  for (const signal of ["SIGTERM", "SIGINT"])
    process.on(signal, () => {
      if (!stopping) log.info(`${signal}: stopping the ${processes} processes`);
      stop();
    });
  for (let i = 0; i < processes; i++) fork(i);
}
