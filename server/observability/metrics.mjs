/**
 * The process's metrics (prom-client), served in Prometheus text format at GET /metrics by the front. Counters start
 * at zero with the process: each replica is scraped on its own, while the workers of one `npm start` are served added
 * up (scripts/processes.mjs). Labels are bounded sets: routes are path templates, outcomes, channels and providers
 * closed lists. One registry per process, shared through `globalThis` by the unbundled front and the code Next.js
 * bundles. Plain JavaScript for the front.
 */
import client from "prom-client";

const KEY = Symbol.for("watch.metrics");

function create() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  /** Filled in by the server once the database is open (server/lifecycle.ts); 0 until then. */
  let dueWaiting = async () => 0;
  return {
    registry,
    httpRequests: new client.Counter({
      name: "watch_http_requests_total",
      help: "HTTP requests answered, by route template, method and status.",
      labelNames: ["route", "method", "status"],
      registers,
    }),
    httpDuration: new client.Histogram({
      name: "watch_http_request_duration_seconds",
      help: "Time from a request's arrival to the end of its answer, by route template and method.",
      labelNames: ["route", "method"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    runs: new client.Counter({
      name: "watch_runs_total",
      help: "Watch runs recorded, by outcome: success, failed (the agent or its provider failed), over_budget.",
      labelNames: ["outcome"],
      registers,
    }),
    runDuration: new client.Histogram({
      name: "watch_run_duration_seconds",
      help: "Time from a run's claim to its recorded outcome (the agent's research included).",
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    runStartDelay: new client.Histogram({
      name: "watch_run_start_delay_seconds",
      help: "How late a scheduled run started: its claim time minus the time it was due.",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    }),
    runsDueWaiting: new client.Gauge({
      name: "watch_runs_due_waiting",
      help: "Active watches whose next run is due and has not started (all replicas: read from the database).",
      registers,
      // Every worker reads the same number: added up, it would count each watch once per worker.
      aggregator: "first",
      async collect() {
        this.set(await dueWaiting());
      },
    }),
    deliveries: new client.Counter({
      name: "watch_deliveries_total",
      help: "Notification delivery attempts, by channel and recorded status (sent, failed, skipped).",
      labelNames: ["channel", "status"],
      registers,
    }),
    modelTokens: new client.Counter({
      name: "watch_model_tokens_total",
      help: "Tokens the model provider counted, by provider and direction (input, output).",
      labelNames: ["provider", "direction"],
      registers,
    }),
    /** @param {() => Promise<number>} count */
    countDueWaitingWith(count) {
      dueWaiting = count;
    },
  };
}

/** @returns {ReturnType<typeof create>} */
export function metrics() {
  return (globalThis[KEY] ??= create());
}
