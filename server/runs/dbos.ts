/**
 * The embedded driver: DBOS Transact on the service's own database. A watch run is a durable workflow
 * (steps checkpointed, resumed after a crash); the next wake-up is a delayed workflow on a queue, with an id
 * derived from the watch and its next_run, so arming twice is harmless and disarming can find it.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import { env } from "../env";
import { db } from "../db";
import { isDatabaseUnavailable } from "../db/availability";
import { deliverEmail, deliverWebhook, WEBHOOK_RETRY_DELAYS_MS } from "../notify";
import type { Scheduler } from "../scheduler";
import { beginRun, evaluateRun, recordOutcome, type RunTrigger } from "./steps";

const QUEUE = "watch-runs";
/** Bump when a workflow's step sequence changes incompatibly (recovery replays by step order). */
const APP_VERSION = "watch-1";

const scheduledId = (taskId: string, at: number) => `run:${taskId}:${at}`;
const requestedId = (executionId: string) => `exec:${executionId}`;

async function enqueueRun(taskId: string, trigger: RunTrigger) {
  const at = "scheduledFor" in trigger ? trigger.scheduledFor : Date.now();
  const workflowID = "scheduledFor" in trigger ? scheduledId(taskId, at) : requestedId(trigger.executionId);
  const delaySeconds = Math.max(0, (at - Date.now()) / 1000);
  await DBOS.startWorkflow(watchRun, {
    workflowID,
    queueName: QUEUE,
    enqueueOptions: delaySeconds > 0 ? { delaySeconds } : undefined,
  })(taskId, trigger);
}

/**
 * The engine's checkpoints wait out a database outage (a restart, a failover) by themselves, and every step starts
 * right after one; a step's own statements can still meet the outage when it begins in between. Those steps retry
 * too (1 s doubling, for about half an hour, only while the database is unreachable): a run failed there would leave
 * its execution open and its watch without a next wake-up. The record step is safe to repeat (`alreadyRecorded`).
 */
const DATABASE_STEP = { retriesAllowed: true, shouldRetry: isDatabaseUnavailable, intervalSeconds: 1, backoffRate: 2, maxAttempts: 12 };

async function watchRunWorkflow(taskId: string, trigger: RunTrigger) {
  const plan = await DBOS.runStep(() => beginRun(taskId, trigger), { name: "begin", ...DATABASE_STEP });
  if (!plan) return;
  const outcome = await DBOS.runStep(() => evaluateRun(plan), { name: "evaluate" });
  const recorded = await DBOS.runStep(() => recordOutcome(taskId, plan.executionId, outcome), { name: "persist", ...DATABASE_STEP });
  if (recorded.nextRun) await enqueueRun(taskId, { scheduledFor: new Date(recorded.nextRun).getTime() });
  if (!recorded.notify) return;
  await DBOS.runStep(() => deliverEmail(plan.executionId), { name: "deliver-email", ...DATABASE_STEP });
  // Retries wait up to half an hour: in their own workflow, off the run queue.
  await DBOS.startWorkflow(webhookDelivery, { workflowID: `webhook:${plan.executionId}` })(plan.executionId);
}

async function webhookDeliveryWorkflow(executionId: string) {
  for (let attempt = 1; ; attempt++) {
    const outcome = await DBOS.runStep(() => deliverWebhook(executionId, attempt), { name: `deliver-webhook-${attempt}`, ...DATABASE_STEP });
    if (!outcome.retry) return;
    await DBOS.sleep(WEBHOOK_RETRY_DELAYS_MS[attempt - 1]!);
  }
}

const g = globalThis as unknown as {
  __watchDbos?: { watchRun: typeof watchRunWorkflow; webhookDelivery: typeof webhookDeliveryWorkflow };
};
// Registered once per process (Next may evaluate this module in more than one bundle).
const registered = (g.__watchDbos ??= {
  watchRun: DBOS.registerWorkflow(watchRunWorkflow, { name: "watchRun" }),
  webhookDelivery: DBOS.registerWorkflow(webhookDeliveryWorkflow, { name: "webhookDelivery" }),
});
const watchRun = registered.watchRun;
const webhookDelivery = registered.webhookDelivery;

/** Cancels a workflow; with `onlyWaiting`, only one that has not started (a run in progress finishes). */
async function cancel(workflowID: string, onlyWaiting = false) {
  const status = (await DBOS.getWorkflowStatus(workflowID))?.status;
  if (!status || (onlyWaiting && status !== "ENQUEUED" && status !== "DELAYED")) return;
  await DBOS.cancelWorkflow(workflowID);
}

const dbosScheduler: Scheduler = {
  name: "dbos",
  arm: (taskId, at) => enqueueRun(taskId, { scheduledFor: at.getTime() }),
  disarm: async (taskId, scheduledAt) => {
    if (scheduledAt) await cancel(scheduledId(taskId, scheduledAt.getTime()), true);
  },
  runNow: (taskId, executionId) => enqueueRun(taskId, { executionId }),
  cancelRun: (executionId) => cancel(requestedId(executionId)),
  health: async () => "ok",
};

/**
 * The engine bounds idle transactions on its connections. Without the setting in the connection URL it sends a
 * `SET` on every new connection without waiting for it, so the borrower's first query is queued behind it (pg's
 * "client.query() when the client is already executing a query" deprecation, an error in pg@9); given as a
 * startup option, the engine sends nothing.
 */
function withIdleTransactionTimeout(databaseUrl: string) {
  const url = new URL(databaseUrl);
  url.searchParams.set("options", `${url.searchParams.get("options") ?? ""} -c idle_in_transaction_session_timeout=60000`.trim());
  return url.toString();
}

/** Starts the engine (recovering interrupted runs) and re-arms every active watch (idempotent). */
export async function startDbos(databaseUrl: string, embedded: boolean): Promise<Scheduler> {
  DBOS.setConfig({
    name: "watch",
    systemDatabaseUrl: withIdleTransactionTimeout(databaseUrl),
    applicationVersion: APP_VERSION,
    executorID: process.env.WATCH_EXECUTOR_ID ?? "local",
    // PGlite has no LISTEN/NOTIFY across its socket clients: poll instead.
    useListenNotify: !embedded,
    runAdminServer: false,
    logLevel: env.LOG_LEVEL === "debug" ? "debug" : "warn",
  } as Parameters<typeof DBOS.setConfig>[0]);
  await DBOS.launch();
  // Due wake-ups move from delayed to enqueued at this cadence too (scripts/patches): a shorter interval starts
  // runs closer to their time and spreads a burst of due watches instead of dispatching it as one batch. On the
  // embedded database every poll runs the database in this process, so it polls less often there.
  const pollingMs = embedded ? 250 : 100;
  await DBOS.registerQueue(QUEUE, { workerConcurrency: env.AGENT_CONCURRENCY * 4, minPollingIntervalMs: pollingMs });
  const active = await db.task.findMany({ where: { state: "active" }, select: { id: true, next_run: true } });
  for (const t of active) {
    let at = t.next_run;
    if (!at) ({ next_run: at } = await db.task.update({ where: { id: t.id }, data: { next_run: new Date() }, select: { next_run: true } }));
    await dbosScheduler.arm(t.id, at!);
  }
  if (active.length) console.log(`scheduler: ${active.length} active watch(es) armed`);
  return dbosScheduler;
}

export async function stopDbos() {
  await DBOS.shutdown();
}
