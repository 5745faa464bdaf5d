/**
 * The embedded driver: DBOS Transact on the service's own database runs the workflow of `./workflow`. A watch run is
 * a durable workflow (steps checkpointed, resumed after a crash); the next wake-up is a delayed workflow on a queue,
 * with an id derived from the watch and its next_run, so arming twice is harmless and disarming can find it.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { wfQueueRunner } from "@dbos-inc/dbos-sdk/internal/wfqueue";
import { now } from "../clock";
import { db } from "../db";
import { nextDigestAt } from "../users/settings";
import { isDatabaseUnavailable } from "../db/availability";
import { env } from "../env";
import type { Scheduler } from "../scheduler";
import type { Notice } from "../notify/events";
import type { RunTrigger } from "./steps";
import { CHANNEL_TYPES, type ChannelType } from "../../channels/list";
import {
  armed,
  digestArmed,
  channelDelivery,
  findingSent,
  findingSentRun,
  digestRun,
  flowControl,
  followUpId,
  channelOfEvent,
  retentionArmed,
  retentionRun,
  watchRun,
  type FollowUp,
  type WorkflowStep,
} from "./workflow";
import { sql } from "../db/sql";
import { closeAgentSlots, runsWaitingForSlot } from "../agent/slots";
import { log } from "../observability/log.mjs";

const QUEUE = "watch-runs";
/** Bump when a workflow's step sequence changes incompatibly (recovery replays by step order). */
const APP_VERSION = "watch-1";

const requestedId = (executionId: string) => `exec:${executionId}`;

/** On the run queue, delayed until `at` (ms) when that is ahead. */
const queued = (workflowID: string, at: number) => {
  const delaySeconds = Math.max(0, (at - Date.now()) / 1000);
  return { workflowID, queueName: QUEUE, enqueueOptions: delaySeconds > 0 ? { delaySeconds } : undefined };
};

async function enqueueRun(taskId: string, trigger: RunTrigger, workflowID: string) {
  await DBOS.startWorkflow(
    registered.watchRun,
    queued(workflowID, "scheduledFor" in trigger ? trigger.scheduledFor : Date.now()),
  )(taskId, trigger);
}

async function start(followUp: FollowUp) {
  const workflowID = followUpId(followUp);
  switch (followUp.name) {
    case "watch/armed":
      return enqueueRun(followUp.data.taskId, { scheduledFor: new Date(followUp.data.at).getTime() }, workflowID);
    case "watch/digest.armed": {
      const { userId, at } = followUp.data;
      return void (await DBOS.startWorkflow(
        registered.digestRun,
        queued(workflowID, Date.parse(at) - env.WATCH_CLOCK_OFFSET_MS),
      )(userId, at));
    }
    case "watch/retention.armed":
      return void (await DBOS.startWorkflow(
        registered.retentionRun,
        queued(workflowID, Date.parse(followUp.data.at) - env.WATCH_CLOCK_OFFSET_MS),
      )(followUp.data.at));
    case "watch/finding.sent":
      return void (await DBOS.startWorkflow(registered.findingSent, { workflowID })(
        followUp.data.executionId,
        followUp.data.channels,
      ));
    default: {
      const { executionId, notice, followId } = followUp.data;
      const type = channelOfEvent(followUp.name)!;
      return void (await DBOS.startWorkflow(registered.deliveries[type], { workflowID })(
        executionId,
        notice,
        followId,
      ));
    }
  }
}

/**
 * The engine's checkpoints wait out a database outage (a restart, a failover) by themselves, and every step starts
 * right after one; a step's own statements can still meet the outage when it begins in between. Those steps retry
 * too (1 s doubling, for about half an hour, only while the database is unreachable): a run failed there would leave
 * its execution open and its watch without a next wake-up. The record step is safe to repeat (`alreadyRecorded`).
 */
const DATABASE_STEP = {
  retriesAllowed: true,
  shouldRetry: isDatabaseUnavailable,
  intervalSeconds: 1,
  backoffRate: 2,
  maxAttempts: 12,
};

const step: WorkflowStep = {
  run: (id, fn, opts) => DBOS.runStep(fn, { name: id, ...(opts?.database ? DATABASE_STEP : {}) }),
  sleep: (_id, ms) => DBOS.sleep(ms),
  send: (_id, followUp) => start(followUp),
};

const g = globalThis as unknown as {
  /** Watch runs under way in this process (a shutdown waits for them). */
  __watchRunsInFlight?: number;
  __watchDbos?: {
    watchRun: (taskId: string, trigger: RunTrigger) => Promise<unknown>;
    deliveries: Record<ChannelType, (executionId: string, notice?: Notice, followId?: string) => Promise<unknown>>;
    digestRun: (userId: string, at: string) => Promise<unknown>;
    findingSent: (executionId: string, channels: string[]) => Promise<unknown>;
    retentionRun: (at: string) => Promise<unknown>;
  };
};
// Registered once per process (Next may evaluate this module in more than one bundle).
const registered = (g.__watchDbos ??= {
  watchRun: DBOS.registerWorkflow(
    async (taskId: string, trigger: RunTrigger) => {
      g.__watchRunsInFlight = (g.__watchRunsInFlight ?? 0) + 1;
      try {
        return await watchRun(step, taskId, trigger);
      } finally {
        g.__watchRunsInFlight--;
      }
    },
    { name: "watchRun" },
  ),
  // One workflow for every channel, registered under a name per channel (`emailDelivery`, `webhookDelivery`, …): the
  // names the email and webhook workflows had before, so their runs in flight across that upgrade recover in place.
  deliveries: Object.fromEntries(
    CHANNEL_TYPES.map((type) => [
      type,
      DBOS.registerWorkflow(
        (executionId: string, notice?: Notice, followId?: string) =>
          channelDelivery(step, type, executionId, notice, followId),
        { name: `${type}Delivery` },
      ),
    ]),
  ) as Record<ChannelType, (executionId: string, notice?: Notice, followId?: string) => Promise<unknown>>,
  digestRun: DBOS.registerWorkflow((userId: string, at: string) => digestRun(step, userId, at), { name: "digestRun" }),
  findingSent: DBOS.registerWorkflow(
    (executionId: string, channels: string[]) => findingSentRun(step, executionId, channels),
    { name: "findingSent" },
  ),
  retentionRun: DBOS.registerWorkflow((at: string) => retentionRun(step, at, forgetFinishedWorkflows), {
    name: "retentionRun",
  }),
});

/**
 * The engine's own record of finished workflows (one per run, delivery and digest, with every step's output) would
 * grow for ever: those finished before `before` are deleted in batches, through the engine's own delete.
 */
async function forgetFinishedWorkflows(before: Date, batchSize = 1000) {
  let total = 0;
  for (;;) {
    const rows = await sql<{ workflow_uuid: string }>(
      `SELECT workflow_uuid FROM dbos.workflow_status WHERE completed_at < $1 AND status IN ('SUCCESS', 'ERROR', 'CANCELLED') LIMIT $2`,
      [before.getTime(), batchSize],
    );
    if (rows.length) await DBOS.deleteWorkflows(rows.map((r) => r.workflow_uuid));
    total += rows.length;
    if (rows.length < batchSize) return total;
  }
}

/** Cancels a workflow; with `onlyWaiting`, only one that has not started (a run in progress finishes). */
async function cancel(workflowID: string, onlyWaiting = false) {
  const status = (await DBOS.getWorkflowStatus(workflowID))?.status;
  if (!status || (onlyWaiting && status !== "ENQUEUED" && status !== "DELAYED")) return;
  await DBOS.cancelWorkflow(workflowID);
}

const dbosScheduler: Scheduler = {
  name: "dbos",
  arm: (watch, at) => start(armed(watch.id, watch.user_id, at.toISOString())),
  disarm: async (taskId, scheduledAt) => {
    if (scheduledAt) await cancel(followUpId(armed(taskId, "", scheduledAt.toISOString())), true);
  },
  runNow: (watch, executionId) => enqueueRun(watch.id, { executionId }, requestedId(executionId)),
  cancelRun: (executionId) => cancel(requestedId(executionId)),
  armDigest: (userId, at) => start(digestArmed(userId, at.toISOString())),
  disarmDigest: (userId, at) => cancel(followUpId(digestArmed(userId, at.toISOString())), true),
  armRetention: (at) => start(retentionArmed(at.toISOString())),
  sendFinding: (executionId, channels) => start(findingSent(executionId, channels)),
  health: async () => queueHealth(),
};

/** A queue poll overdue by this much means the engine's dispatch loop has stopped (it polls every 100–250 ms). */
const STALLED_AFTER_MS = 10_000;

/** The dispatch loop's real state: running, and its last poll of the run queue recent (read from the engine's runner). */
function queueHealth(): string {
  const runner = wfQueueRunner as unknown as { isRunning: boolean; states: Map<string, { nextPollAt: number }> };
  if (!runner.isRunning) return "not running";
  const state = runner.states.get(QUEUE);
  if (!state) return "not running: the run queue is not polled";
  const overdue = Date.now() - state.nextPollAt;
  return overdue > STALLED_AFTER_MS ? `stalled: no poll of the run queue for ${Math.round(overdue / 1000)} s` : "ok";
}

/**
 * The engine bounds idle transactions on its connections. Without the setting in the connection URL it sends a
 * `SET` on every new connection without waiting for it, so the borrower's first query is queued behind it (pg's
 * "client.query() when the client is already executing a query" deprecation, an error in pg@9); given as a
 * startup option, the engine sends nothing.
 */
function withIdleTransactionTimeout(databaseUrl: string) {
  const url = new URL(databaseUrl);
  url.searchParams.set(
    "options",
    `${url.searchParams.get("options") ?? ""} -c idle_in_transaction_session_timeout=60000`.trim(),
  );
  return url.toString();
}

/** Any fixed number: the advisory lock that launches take one at a time. */
const LAUNCH_LOCK = 0x57a7c4_01;

/**
 * The engine creates and upgrades its tables at launch without a lock of its own: two processes launching at once on
 * a new database (replicas started together, the workers of one start) deadlock. Launches take turns on PostgreSQL;
 * the embedded database serves one process.
 */
async function launchInTurn(databaseUrl: string, embedded: boolean) {
  if (embedded) return DBOS.launch();
  const session = new pg.Client({ connectionString: databaseUrl });
  await session.connect();
  try {
    // Tried, not waited for: a session waiting on the lock would hold a snapshot, and the launch under way builds
    // its indexes concurrently, which waits for every snapshot to end.
    while (!(await session.query("SELECT pg_try_advisory_lock($1) AS got", [LAUNCH_LOCK])).rows[0].got)
      await new Promise((r) => setTimeout(r, 100));
    await DBOS.launch();
  } finally {
    // The lock is the session's: it ends with it.
    await session.end().catch(() => {});
  }
}

/** Starts the engine (recovering interrupted runs) and re-arms every active watch (idempotent). */
export async function startDbos(databaseUrl: string, embedded: boolean): Promise<Scheduler> {
  DBOS.setConfig({
    name: "watch",
    systemDatabaseUrl: withIdleTransactionTimeout(databaseUrl),
    applicationVersion: APP_VERSION,
    executorID: env.WATCH_EXECUTOR_ID,
    // PGlite has no LISTEN/NOTIFY across its socket clients: poll instead.
    useListenNotify: !embedded,
    runAdminServer: false,
    logLevel: env.LOG_LEVEL === "debug" ? "debug" : "warn",
    // Workflow and step spans, through the tracer of server/observability/tracing.ts when tracing is on.
    tracingEnabled: !!env.OTEL_EXPORTER_OTLP_ENDPOINT,
  } as Parameters<typeof DBOS.setConfig>[0]);
  await launchInTurn(databaseUrl, embedded);
  // Due wake-ups move from delayed to enqueued at this cadence too (scripts/patches): a shorter interval starts
  // runs closer to their time and spreads a burst of due watches instead of dispatching it as one batch. On the
  // embedded database every poll runs the database in this process, so it polls less often there.
  const pollingMs = embedded ? 250 : 100;
  await DBOS.registerQueue(QUEUE, { workerConcurrency: flowControl().queued, minPollingIntervalMs: pollingMs });
  const active = await db.task.findMany({
    where: { state: "active" },
    select: { id: true, user_id: true, next_run: true },
  });
  for (const t of active) {
    let at = t.next_run;
    if (!at)
      ({ next_run: at } = await db.task.update({
        where: { id: t.id },
        data: { next_run: new Date() },
        select: { next_run: true },
      }));
    await dbosScheduler.arm(t, at!);
  }
  if (active.length) log.info(`scheduler: ${active.length} active watch(es) armed`);
  for (const u of await db.user.findMany({
    where: { email_digest: "daily" },
    select: { id: true, timezone: true, next_digest_at: true },
  })) {
    let at = u.next_digest_at;
    if (!at || at.getTime() < now().getTime() - 3_600_000)
      ({ next_digest_at: at } = await db.user.update({
        where: { id: u.id },
        data: { next_digest_at: nextDigestAt(u) },
      }));
    await dbosScheduler.armDigest(u.id, at!);
  }
  return dbosScheduler;
}

/**
 * The start of a shutdown: the queue stops handing out runs, runs still waiting for an agent slot stay unstarted,
 * and the runs under way get until `deadline` to finish. Whatever has not finished then is recorded in the engine as
 * pending and is recovered at the next start (on PostgreSQL, also by another replica's recovery), from its last
 * completed step; each step's own writes are one transaction, so nothing is left half-written.
 */
export async function drainDbos(deadline: number) {
  wfQueueRunner.stop();
  closeAgentSlots();
  const running = () => (g.__watchRunsInFlight ?? 0) - runsWaitingForSlot();
  while (running() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (running() > 0) log.warn(`${running()} run(s) still under way: they resume at the next start`);
}

export async function stopDbos() {
  await DBOS.shutdown();
}
