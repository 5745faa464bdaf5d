/**
 * One `npm start` serving from several processes (SERVER_PROCESSES): a primary that accepts the connections and
 * hands each to a worker (scripts/processes.mjs), and the workers, each a whole server on the same PostgreSQL
 * database, as replicas are. What replicas share through outside services, workers share through the primary: the
 * connections each client holds open, the rate-limit windows (without Upstash) and the metrics GET /metrics serves.
 * This module reads the variable and carries those questions and answers. Plain JavaScript for the front.
 */
import cluster from "node:cluster";
import os from "node:os";

/** Set by the primary on each worker it forks: the worker's number, 0 first. */
export const WORKER_INDEX = "WATCH_WORKER_INDEX";

/** This process is one of several serving one `npm start`. */
export const inWorker = () => cluster.isWorker && process.env[WORKER_INDEX] !== undefined;

/** At most this many: each holds its own Next.js, database pool and engine. */
export const MAX_SERVER_PROCESSES = 32;

/**
 * SERVER_PROCESSES as a count: unset or empty is 1, `auto` one per core the machine gives this process. More than one
 * needs PostgreSQL (DATABASE_URL): the embedded database is opened by one process. Throws saying what is wrong.
 */
export function serverProcesses(value, databaseUrl) {
  const given = (value ?? "").trim();
  const count =
    given === "" ? 1 : given === "auto" ? os.availableParallelism() : /^\d+$/.test(given) ? Number(given) : NaN;
  if (!Number.isInteger(count) || count < 1 || count > MAX_SERVER_PROCESSES)
    throw new Error(`SERVER_PROCESSES: expected a whole number from 1 to ${MAX_SERVER_PROCESSES}, or auto`);
  if (count > 1 && !databaseUrl)
    throw new Error(
      "SERVER_PROCESSES: more than one process needs PostgreSQL (DATABASE_URL); the embedded database serves one",
    );
  return count;
}

/**
 * Questions and answers over an IPC channel (a worker's `process`, or the primary's handle on a worker): `ask` sends
 * a question and resolves with the other side's answer, or fails after `timeoutMs`; `handlers` answer the other
 * side's questions by name.
 * @param {{ on: Function, send: Function, connected?: boolean }} channel
 * @param {Record<string, (body: any) => unknown>} handlers
 */
export function messenger(channel, handlers = {}) {
  let next = 0;
  const pending = new Map();
  const send = (message) => {
    try {
      if (channel.connected !== false) channel.send(message);
    } catch {
      // The other side is gone; its questions go unanswered, ours time out.
    }
  };
  channel.on("message", async (m) => {
    if (m?.type === "watch:answer") {
      const waiting = pending.get(m.id);
      if (!waiting) return;
      pending.delete(m.id);
      clearTimeout(waiting.timer);
      if (m.error === undefined) waiting.resolve(m.value);
      else waiting.reject(new Error(m.error));
    } else if (m?.type === "watch:ask") {
      try {
        const handler = handlers[m.what];
        if (!handler) throw new Error(`no answer to ${m.what}`);
        send({ type: "watch:answer", id: m.id, value: await handler(m.body) });
      } catch (e) {
        send({ type: "watch:answer", id: m.id, error: e instanceof Error ? e.message : String(e) });
      }
    }
  });
  return {
    /** @returns {Promise<any>} */
    ask(what, body, timeoutMs = 2000) {
      return new Promise((resolve, reject) => {
        const id = next++;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`no answer to ${what} within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve, reject, timer });
        try {
          channel.send({ type: "watch:ask", id, what, body });
        } catch (e) {
          pending.delete(id);
          clearTimeout(timer);
          reject(e);
        }
      });
    },
  };
}

/** The worker's line to its primary: one per process, shared by the front and the code Next.js bundles. */
const KEY = Symbol.for("watch.primary");

/** Opens the line (a worker, once, at start), answering the primary's questions with `handlers`. */
export function connectToPrimary(handlers) {
  globalThis[KEY] = messenger(process, handlers);
}

/** Asks the primary (from a worker). */
export function askPrimary(what, body, timeoutMs) {
  const line = globalThis[KEY];
  if (!line) return Promise.reject(new Error("not a worker process"));
  return line.ask(what, body, timeoutMs);
}
