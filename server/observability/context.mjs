/**
 * What the process is doing right now, for logs, metrics and traces: the request (its id, and the route template
 * once the application has matched one) or the watch run (its execution and watch). The front (scripts/front.mjs)
 * opens a request's context before any application code runs; server code adds to it. One store per process, shared
 * through `globalThis` by the unbundled front and the code Next.js bundles. Plain JavaScript for the front.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/**
 * @typedef {{ request_id?: string, execution_id?: string, task_id?: string }} LogIds
 * @typedef {{ ids: LogIds, route?: string }} Activity
 */

const KEY = Symbol.for("watch.activity");
/** @type {AsyncLocalStorage<Activity>} */
const storage = (globalThis[KEY] ??= new AsyncLocalStorage());

/**
 * Runs `fn` with `ids` added to the current ones (a run inside a request keeps the request's id).
 * @template T
 * @param {LogIds} ids
 * @param {() => T} fn
 * @returns {T}
 */
export function withActivity(ids, fn) {
  const outer = storage.getStore();
  return storage.run({ ids: { ...outer?.ids, ...ids } }, fn);
}

/**
 * Adds ids to the current context in place (a run learns its execution's id after its claim).
 * @param {LogIds} ids
 */
export function addActivityIds(ids) {
  const activity = storage.getStore();
  if (activity) Object.assign(activity.ids, ids);
}

/** @returns {Activity | undefined} */
export function currentActivity() {
  return storage.getStore();
}

/**
 * Names the route of the current request by its template (`/api/v1/tasks/{id}`), which metrics and traces label
 * it with: a bounded set, unlike paths.
 * @param {string} template
 */
export function setRoute(template) {
  const activity = storage.getStore();
  if (activity) activity.route = template;
}
