/**
 * bcrypt off the event loop. bcryptjs is pure JavaScript (~100 ms of CPU per compare at cost 10), and its async
 * API still runs on the main thread in slices: a burst of compares stalled every request. Here the
 * synchronous functions run on a few worker threads, leaving a core to the event loop.
 *
 * The worker is a script given as a string (`eval`), so no worker file has to survive Next.js's bundling of
 * server code; it requires bcryptjs from node_modules at run time (next.config.mjs keeps it external), resolved
 * from the working directory, which scripts/start.mjs sets to the project root.
 */
import os from "node:os";
import { Worker } from "node:worker_threads";

const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const bcrypt = require("bcryptjs");
// Below the event loop's priority (Linux: this thread's id from /proc), so that on a busy machine requests come first.
try {
  const tid = Number(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop());
  require("node:os").setPriority(tid, require("node:os").constants.priority.PRIORITY_BELOW_NORMAL);
} catch {}
parentPort.on("message", ({ id, op, key, arg }) => {
  try {
    parentPort.postMessage({ id, result: op === "hash" ? bcrypt.hashSync(key, arg) : bcrypt.compareSync(key, arg) });
  } catch (e) {
    parentPort.postMessage({ id, error: String(e && e.message || e) });
  }
});`;

type Job = { id: number; op: "hash" | "compare"; key: string; arg: string | number };
type Pending = { resolve: (v: never) => void; reject: (e: Error) => void };
type Slot = { worker: Worker; busy?: Job };

const SIZE = Math.max(1, Math.min(4, os.availableParallelism() - 1));
const slots: Slot[] = [];
const queue: Job[] = [];
const pending = new Map<number, Pending>();
let nextId = 0;

function spawn(): Slot {
  const slot: Slot = { worker: new Worker(WORKER_SOURCE, { eval: true }) };
  slot.worker.on("message", (msg: { id: number; result?: unknown; error?: string }) => {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    slot.busy = undefined;
    slot.worker.unref();
    if (msg.error !== undefined) p?.reject(new Error(`bcrypt: ${msg.error}`));
    else p?.resolve(msg.result as never);
    dispatch();
  });
  // A worker that dies takes only its current job with it; a fresh one takes its place.
  slot.worker.on("error", (e) => {
    const job = slot.busy;
    if (job) pending.get(job.id)?.reject(e);
    if (job) pending.delete(job.id);
    slots.splice(slots.indexOf(slot), 1);
    dispatch();
  });
  slots.push(slot);
  return slot;
}

function dispatch() {
  while (queue.length) {
    const slot = slots.find((s) => !s.busy) ?? (slots.length < SIZE ? spawn() : undefined);
    if (!slot) return;
    const job = queue.shift()!;
    slot.busy = job;
    // Referenced only while it works: an idle pool never keeps the process up.
    slot.worker.ref();
    slot.worker.postMessage(job);
  }
}

function run<T>(op: Job["op"], key: string, arg: Job["arg"]): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve: resolve as (v: never) => void, reject });
    queue.push({ id, op, key, arg });
    dispatch();
  });
}

export const bcryptCompare = (key: string, hash: string) => run<boolean>("compare", key, hash);
export const bcryptHash = (key: string, cost: number) => run<string>("hash", key, cost);
