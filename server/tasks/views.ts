/**
 * Task and execution rows -> API objects, and the one place that decides what anyone but a watch's owner may see of
 * it: no owner identity beyond the username, no channels, no error text or model usage, and no run whose new finding
 * the owner's trust bounds held back (`isHeld`; `SHOWN_PUBLICLY` is the same rule for reads in SQL). Public task JSON,
 * the public pages, explore, the feeds and the follows list all build on these views.
 */
import type { Execution, Finding, Task, TaskNotification } from "../db";
import { withDomain, type Source } from "../agent/sources";
import { pendingViews } from "./view-counts";
import { CHANNELS, channelPosition } from "../../channels/list";
import { redactedView } from "../../channels/kit/secrets";
import type { LatestDelivery } from "../notify/deliveries";
import { storedConfig } from "./notifications";
import {
  CADENCE_CEILING,
  cadenceFloor,
  type ExecutionResult,
  type FindingView,
  type NotificationConfig,
  type ProgressStep,
  type Resolution,
  type TaskView,
} from "./schemas";
import { isOpen } from "../../lib/outcome";
import { verdictOf, type Verdict } from "./verdict";

/** Of the execution that last notified a finding, what the verdict shows. */
export type NotifiedExecution = Pick<
  Execution,
  "retracted_by_execution_id" | "completed_at" | "created_at" | "result" | "grounding_sources"
>;

export type TaskRow = Task & {
  notifications: TaskNotification[];
  last_execution?: Execution | null;
  /** The last run a non-owner may see (read for public views: `./reads`, `publicLast`). */
  last_public_execution?: Execution | null;
  notified_execution: NotifiedExecution | null;
  /** The latest failed run, read while checks fail (at most one): what the verdict's `cant_check` says. */
  executions?: Pick<Execution, "error_message">[];
  user?: { username: string | null } | null;
  /** Read for the owner's view of one watch (`deliveriesOf` in `./reads`). */
  deliveries?: LatestDelivery[] | null;
};

/**
 * A watch just created has no runs: only its channels are read back, with the create itself (a plain INSERT when it
 * has none; anything more makes Prisma wrap the create in a transaction). Its row is completed here.
 */
export const newTaskRow = (created: Task & { notifications?: TaskNotification[] }): TaskRow =>
  Object.assign(created, {
    notifications: created.notifications ?? [],
    last_execution: null,
    notified_execution: null,
    executions: [],
  });

/** What a write loads back with the row (reads: `./reads`, which selects the same). */
export const taskInclude = {
  notifications: true,
  last_execution: true,
  executions: {
    where: { status: "failed" },
    orderBy: { created_at: "desc" },
    take: 1,
    select: { error_message: true },
  },
  notified_execution: {
    select: {
      retracted_by_execution_id: true,
      completed_at: true,
      created_at: true,
      result: true,
      grounding_sources: true,
    },
  },
} as const;

const iso = (d: Date | null) => (d ? d.toISOString() : null);
type JsonObject = Record<string, unknown>;
const asObject = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : null);

/**
 * A run whose new finding did not clear the owner's trust bounds (its gate did not pass) and that its owner did not
 * send anyway (which gives it its notification): the owner's alone.
 */
export const isHeld = (e: Pick<Execution, "result" | "notification">) =>
  asObject(asObject(e.result)?.gate)?.passed === false && !e.notification;

/** `isHeld`'s complement in SQL, over an `executions` row aliased `e`: the runs a public read may return. */
export const SHOWN_PUBLICLY = `(coalesce((e.result->'gate'->>'passed')::boolean, true) OR e.notification IS NOT NULL)`;

/** Stored sources as every view shows them: each with its site. */
export const sourcesView = (stored: unknown) => (Array.isArray(stored) ? (stored as Source[]).map(withDomain) : null);

/** Stored JSON was checked when the run was recorded (server/runs/steps.ts); older results lack the later fields. */
export function executionView(e: Execution) {
  const result = asObject(e.result) as ExecutionResult | null;
  return {
    id: e.id,
    task_id: e.task_id,
    status: e.status,
    started_at: e.started_at.toISOString(),
    completed_at: iso(e.completed_at),
    result: result && { next_run_reason: "", gate: null, retracted_execution_id: null, ...result },
    error_message: e.error_message,
    notification: asObject(e.notification) as { title: string; markdown: string } | null,
    grounding_sources: sourcesView(e.grounding_sources),
    retracted_by_execution_id: e.retracted_by_execution_id,
    progress: Array.isArray(e.progress) ? (e.progress as ProgressStep[]) : ([] as ProgressStep[]),
    created_at: e.created_at.toISOString(),
  };
}
export type ExecutionView = ReturnType<typeof executionView>;

/**
 * `met` while the last notified finding stands, `resolved` once the watch is completed with it standing; a
 * retraction (or no finding yet) is `watching`.
 */
export function resolutionOf(row: Pick<TaskRow, "state" | "notified_execution">): Resolution {
  const finding = row.notified_execution;
  if (!finding || finding.retracted_by_execution_id)
    return { status: "watching", since: null, answer: null, sources: [] };
  const result = asObject(finding.result);
  return {
    status: row.state === "completed" ? "resolved" : "met",
    since: (finding.completed_at ?? finding.created_at).toISOString(),
    answer: typeof result?.answer === "string" ? result.answer : null,
    sources: sourcesView(finding.grounding_sources) ?? [],
  };
}

/** What a watch's verdict is decided from: the row's columns, its standing finding, its open run, its last failure. */
type VerdictSource = Pick<
  Task,
  | "state"
  | "state_changed_at"
  | "next_run"
  | "failure_streak"
  | "failing_since"
  | "latest_answer_at"
  | "public_answer_at"
  | "held_reason"
  | "finding_at"
> & {
  notified_execution: NotifiedExecution | null;
  open_run?: OpenRun | null;
  executions?: Pick<Execution, "error_message">[];
};

type OpenRun = { status: string; started_at: Date };

/**
 * A watch's verdict for its owner or for anyone else (`verdictOf` decides; this reads the row): anyone else never
 * sees a held finding, and reads the answer of the latest run not held back. `open`: the open run, the row's
 * `open_run` unless given.
 */
export function verdictFor(
  row: VerdictSource,
  audience: "owner" | "public",
  open: OpenRun | null = row.open_run ?? null,
): Verdict {
  return verdictOf({
    state: row.state,
    state_changed_at: row.state_changed_at,
    next_run: row.next_run,
    resolution: resolutionOf(row),
    open,
    latest_answer_at: row.latest_answer_at,
    answer_at: audience === "owner" ? row.latest_answer_at : row.public_answer_at,
    failure_streak: row.failure_streak,
    failing_since: row.failing_since,
    last_error: row.executions?.[0]?.error_message ?? null,
    held_reason: audience === "owner" ? row.held_reason : null,
    finding_at: row.finding_at,
    audience,
  });
}

/** The open run of a row with its last execution. */
const openRun = (row: TaskRow) => (row.last_execution && isOpen(row.last_execution) ? row.last_execution : null);

/** A finding or retraction newer than the owner's last look at the watch. */
export const isUnseen = (row: Pick<Task, "finding_at" | "seen_at">) =>
  !!row.finding_at && (!row.seen_at || row.finding_at > row.seen_at);

/** A watch's channels as reads show them: in the listed order (channels/list.ts), write-only secrets redacted. */
export function notificationConfigs(rows: Pick<TaskNotification, "type" | "config">[]): NotificationConfig[] {
  return channelConfigs(rows.map(storedConfig));
}

/** Channel configs (a watch's or a follower's) as reads show them: the first of each type, in the listed order. */
export function channelConfigs(configs: readonly { type: string }[]): NotificationConfig[] {
  const inOrder: NotificationConfig[] = [];
  for (const config of configs) {
    const i = channelPosition(config.type);
    if (i >= 0 && !inOrder[i]) inOrder[i] = redactedView(CHANNELS[i]!, config) as NotificationConfig;
  }
  return inOrder.filter(Boolean); // the types it has, without the gaps between them
}

/** The owner's full view. */
export function ownerTaskView(row: TaskRow): TaskView {
  const notifications = notificationConfigs(row.notifications);
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    search_query: row.search_query,
    condition_description: row.condition_description,
    state: row.state,
    next_run: iso(row.next_run),
    is_public: row.is_public,
    view_count: row.view_count + pendingViews(row.id),
    subscriber_count: row.subscriber_count,
    forked_from_task_id: row.forked_from_task_id,
    last_known_state: asObject(row.last_known_state),
    last_execution_id: row.last_execution_id,
    last_execution: row.last_execution ? executionView(row.last_execution) : null,
    resolution: resolutionOf(row),
    verdict: verdictFor(row, "owner", openRun(row)),
    latest_answer: row.latest_answer,
    unseen: isUnseen(row),
    answered: row.answered_execution_id !== null && row.answered_execution_id === row.notified_execution_id,
    delivery_failed: row.delivery_failed,
    min_confidence: row.min_confidence,
    min_sources: row.min_sources,
    min_interval_minutes: row.min_interval_minutes ?? cadenceFloor(),
    max_interval_minutes: row.max_interval_minutes ?? CADENCE_CEILING,
    notifications,
    notification_email: notifications.find((n) => n.type === "email")?.address ?? null,
    webhook_url: notifications.find((n) => n.type === "webhook")?.url ?? null,
    state_changed_at: row.state_changed_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: iso(row.updated_at),
  };
}

/**
 * An execution as anyone but the owner sees it: no error text (it can name the owner's endpoints or the provider's
 * account), no model or token usage.
 */
export function publicExecutionView(e: Execution) {
  const view = executionView(e);
  if (view.result) {
    const shown = { ...view.result };
    delete shown.model;
    delete shown.usage;
    view.result = shown;
  }
  view.error_message = null;
  delete (view as { progress?: unknown }).progress;
  return view;
}

/** A finding as its owner sees it; the public sees only notified and retracted ones (`PUBLIC_FINDING_STATUSES`). */
export function findingView(f: Finding): FindingView {
  return {
    key: f.key,
    title: f.title,
    answer: f.answer,
    sources: sourcesView(f.sources) ?? [],
    status: f.status,
    gate_reason: f.gate_reason,
    first_found_at: f.first_found_at.toISOString(),
    last_confirmed_at: f.last_confirmed_at.toISOString(),
    confirmations: f.confirmations,
    first_execution_id: f.first_execution_id,
    last_execution_id: f.last_execution_id,
    retracted_at: iso(f.retracted_at),
  };
}

/** The findings anyone but the owner may see: a held one was never told to anyone. */
export const PUBLIC_FINDING_STATUSES = ["notified", "retracted"] as const;

/**
 * What anyone but the owner sees of a public watch: no owner identity beyond the username, no channels, and as its
 * last run the last one not held back (a row read without `publicLast` shows none rather than a held one).
 */
export function publicTaskView(row: TaskRow): TaskView {
  const last =
    row.last_public_execution !== undefined
      ? row.last_public_execution
      : row.last_execution && !isHeld(row.last_execution)
        ? row.last_execution
        : null;
  const view: TaskView = {
    ...ownerTaskView({ ...row, notifications: [] }),
    user_id: null,
    last_known_state: null,
    last_execution_id: last?.id ?? null,
    last_execution: last && !isHeld(last) ? publicExecutionView(last) : null,
    verdict: verdictFor(row, "public", openRun(row)),
    latest_answer: row.public_answer,
    owner: { username: row.user?.username ?? null },
  };
  delete view.unseen;
  delete view.answered;
  delete view.delivery_failed;
  return view;
}
