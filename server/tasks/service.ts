/**
 * Watches ("tasks"): creation, reads with owner/non-owner views, partial updates with the state machine below,
 * visibility and forking. A state change calls the scheduler after its commit; when the scheduler fails, every change
 * of the request is written back, so a watch is never left active without a scheduled check (or paused with one).
 */
import { DomainError, notFound, validationError } from "../errors";
import { randomUUID } from "node:crypto";
import { db, Prisma, type Task, type TaskNotification, type TaskState, type User } from "../db";
import { deliveryViews } from "../notify/deliveries";
import { scheduler } from "../scheduler";
import { startExecution } from "./executions";
import { readToken } from "../notify/links";
import { parseNotifications, storedConfig } from "./notifications";
import {
  CADENCE_ORDER,
  pickDefinition,
  type CreateTaskInput,
  type ListSort,
  type ListTasksQuery,
  type NotificationConfig,
  type UpdateTaskInput,
} from "./schemas";
import { findTask, pageOfTasks, TASK_COLUMNS, type TaskOrder } from "./reads";
import { lockAccount, prismaQuery, reviveDates, sql, transaction, type Query } from "../db/sql";
import { activeTaskLimitReached, assertActiveAllowance, assertRunBudget, COUNT_ACTIVE } from "../usage";
import { definitionChanges, recordChanges } from "./history";
import { endAllFollows } from "../follows/service";
import { recountSubscribers } from "../follows/subscribers";
import { newTaskRow, ownerTaskView, publicTaskView, taskInclude, type TaskRow } from "./views";
import { countView } from "./view-counts";
import { entityTag, matchesIfNoneMatch } from "../http/conditional";
import type { z } from "zod";
import { env } from "../env";
import { log } from "../observability/log.mjs";

const DEFAULT_NAME = "New Monitor";
const MAX_NAME = 200;

/** Valid transitions (a completed watch can only be made active again). Setting the current state again is a no-op. */
const TRANSITIONS: Record<TaskState, readonly TaskState[]> = {
  active: ["paused", "completed"],
  paused: ["active"],
  completed: ["active"],
};

export function checkTransition(from: TaskState, to: TaskState) {
  if (from !== to && !TRANSITIONS[from].includes(to))
    throw new DomainError("invalid", `Invalid state transition: ${from} -> ${to}`);
}

/** Every watch counts toward MAX_WATCHES_PER_ACCOUNT, paused and completed ones too: all are in the owner's list. */
const watchLimitReached = () => `Watch limit reached (${env.MAX_WATCHES_PER_ACCOUNT}). Delete a watch first.`;

/** Channel configs as rows: the type, and the rest of the config as one document. */
function notificationRows(configs: ReturnType<typeof parseNotifications>) {
  return configs.map(({ type, ...config }) => ({ type, config: config as Prisma.InputJsonValue }));
}

async function ownedTask(user: User, id: string) {
  const row = await findTask(id);
  if (!row || row.user_id !== user.id) throw notFound();
  return row;
}

/**
 * Inserts a watch and its channels if the account's caps allow it: the account's row is locked first, so concurrent
 * creates take turns and none passes a cap. The database counts the account's watches as they come and go
 * (`users.watch_count`); its active ones, at most the active cap, are counted here when the new watch is active. One
 * statement checks, inserts and reads back; it is sent with the lock (one round trip on a pipelined pool) and runs once
 * the lock is granted, with a snapshot of its own that sees every create before it (Prisma's interactive transaction
 * held the lock over four statements, each a turn of a busy event loop and of its query engine, and one account's
 * concurrent creates crawled: docs/benchmarks.md). `then` runs in the same transaction once the watch is in.
 */
async function insertTask(
  userId: string,
  fields: Record<string, unknown>,
  notifications: ReturnType<typeof notificationRows>,
  then?: (query: Query) => Promise<unknown>,
): Promise<TaskRow> {
  const columns = Object.keys(fields).filter((c) => fields[c] !== undefined);
  const active = fields.state === "active";
  const [row] = await transaction(async (query) => {
    const locked = lockAccount(query, userId);
    const inserted = (then ? query : query.last)<Task & { caps_watches: number; notifications: TaskNotification[] }>(
      // The record's columns take the table's types (json_populate_record), as an INSERT's VALUES would.
      `WITH caps AS (SELECT u.watch_count AS watches,
                            CASE WHEN $4 THEN (${COUNT_ACTIVE}) END AS active
                       FROM users u WHERE u.id = $1::uuid),
              t AS (INSERT INTO tasks (${columns.join(", ")})
                    SELECT ${columns.map((c) => `r.${c}`).join(", ")} FROM caps, json_populate_record(NULL::tasks, $2::json) r
                    WHERE caps.watches < $3 AND (NOT $4 OR caps.active < $5) RETURNING *),
              n AS (INSERT INTO task_notifications (id, task_id, type, config)
                    SELECT gen_random_uuid(), t.id, c.type::"NotificationType", c.config
                      FROM t, jsonb_to_recordset($6::jsonb) AS c(type text, config jsonb) RETURNING *)
            SELECT caps.watches AS caps_watches, ${TASK_COLUMNS},
                   (SELECT coalesce(json_agg(n), '[]') FROM n) AS notifications
              FROM caps LEFT JOIN t ON true`,
      [
        userId,
        JSON.stringify(Object.fromEntries(columns.map((c) => [c, fields[c]]))),
        env.MAX_WATCHES_PER_ACCOUNT,
        active,
        env.MAX_ACTIVE_TASKS_PER_USER,
        JSON.stringify(notifications),
      ],
    );
    const [, rows] = await Promise.all([locked, inserted]);
    if (rows[0]?.id !== null) await then?.(query);
    return rows;
  });
  const { caps_watches, ...task } = row!;
  if (task.id === null) {
    if (caps_watches >= env.MAX_WATCHES_PER_ACCOUNT) throw new DomainError("forbidden", watchLimitReached());
    throw new DomainError("forbidden", activeTaskLimitReached());
  }
  for (const n of task.notifications) reviveDates(n as unknown as Record<string, unknown>, ["created_at"]);
  return newTaskRow(task);
}

export async function createTask(user: User, input: z.infer<typeof CreateTaskInput>) {
  const notifications = notificationRows(parseNotifications(input.notifications ?? []));
  const state = input.state ?? "active";
  const now = new Date();
  const row = await insertTask(
    user.id,
    {
      id: randomUUID(),
      user_id: user.id,
      ...pickDefinition(input),
      name: input.name ?? DEFAULT_NAME,
      condition_description: input.condition_description ?? input.search_query,
      state,
      next_run: state === "active" ? now : null,
    },
    notifications,
  );

  let immediate_execution_error: string | null = null;
  if (input.run_immediately) {
    try {
      await assertRunBudget(user.id);
      await startExecution(row.id);
    } catch (e) {
      immediate_execution_error = e instanceof Error ? e.message : String(e);
    }
  }
  // A run started here re-arms the watch when it finishes; otherwise the first scheduled run is now.
  if (state === "active" && (!input.run_immediately || immediate_execution_error)) {
    await scheduler()
      .arm(row, now)
      .catch((e: unknown) =>
        log.error({ err: e }, `arming watch ${row.id} failed; it will be armed at the next start`),
      );
  }
  const fresh = input.run_immediately ? await ownedTask(user, row.id) : row;
  return { ...ownerTaskView(fresh), immediate_execution_error };
}

const ORDERS: Record<ListSort, TaskOrder> = {
  created: "recent",
  attention: "attention",
  updated: "updated",
  name: "name",
};

/**
 * The owner's watches in the order asked (newest first unless said), filtered by state and words: all of them, or a
 * page with `limit`/`offset`; `total` counts every match.
 */
export async function listTasks(user: User, query: ListTasksQuery = {}) {
  const words = query.q?.trim().split(/\s+/).filter(Boolean);
  const filter = { userId: user.id, state: query.state, words: words?.length ? words : undefined };
  const order = ORDERS[query.sort ?? "created"];
  const { rows, total } = await pageOfTasks(filter, { order, limit: query.limit, offset: query.offset });
  return { tasks: rows.map(ownerTaskView), total };
}

/**
 * Owner: full view, with what became of the latest notice on each channel. Anyone else: the public view of a public
 * watch; a private one does not exist for them.
 */
export async function getTask(viewer: User, id: string) {
  const row = await findTask(id, { publicLast: true, deliveriesOf: viewer.id });
  if (!row || (row.user_id !== viewer.id && !row.is_public)) throw notFound();
  if (row.user_id !== viewer.id) return publicTaskView(row);
  return { ...ownerTaskView(row), delivery: deliveryViews(row.deliveries ?? []) };
}

/**
 * The owner looked at the watch (its dashboard page, or `POST …/seen`): its findings so far are no longer `unseen`.
 * Answers when they last looked before (null: never), so a page can mark what is new since; null for anyone else.
 */
export async function markSeen(userId: string, id: string): Promise<{ previous: Date | null } | null> {
  const [row] = await sql<{ previous: Date | null }>(
    `UPDATE tasks t SET seen_at = $3 FROM tasks p WHERE p.id = t.id AND t.id = $1::uuid AND t.user_id = $2::uuid
     RETURNING p.seen_at AS previous`,
    [id, userId, new Date()],
  );
  return row ?? null;
}

/** `POST /api/v1/tasks/{id}/seen`: the owner's API clients mark a watch seen as its page does. */
export async function seeTask(user: User, id: string) {
  if (!(await markSeen(user.id, id))) throw notFound();
}

/**
 * `POST /api/v1/tasks/{id}/keep-watching`: the owner answered "Answered — stop watching, or keep watching for
 * changes?" with Keep watching, for the finding that stands now (completing the watch answers it too): every browser
 * and client then leaves the question for that finding.
 */
export async function keepWatching(user: User, id: string) {
  const [row] = await sql(
    `UPDATE tasks SET answered_execution_id = notified_execution_id WHERE id = $1::uuid AND user_id = $2::uuid RETURNING id`,
    [id, user.id],
  );
  if (!row) throw notFound();
}

export async function updateTask(user: User, input: z.infer<typeof UpdateTaskInput>) {
  const { id, state, notifications, ...fields } = input;
  const current = await ownedTask(user, id);
  const configs = notifications
    ? notificationRows(
        parseNotifications(notifications, current.notifications.map(storedConfig) as NotificationConfig[]),
      )
    : undefined;
  if (state) checkTransition(current.state, state);
  const before = ownerTaskView(current);
  if (
    (fields.min_interval_minutes ?? before.min_interval_minutes) >
    (fields.max_interval_minutes ?? before.max_interval_minutes)
  )
    throw validationError(
      fields.min_interval_minutes !== undefined ? "min_interval_minutes" : "max_interval_minutes",
      CADENCE_ORDER,
      input,
    );
  const changesState = !!state && state !== current.state;
  const now = new Date();

  const { row, changeId } = await db.$transaction(async (tx) => {
    if (changesState && state === "active") await assertActiveAllowance(prismaQuery(tx), user.id);
    if (configs) {
      await tx.taskNotification.deleteMany({ where: { task_id: id } });
      await tx.taskNotification.createMany({ data: configs.map((c) => ({ ...c, task_id: id })) });
    }
    const row = await tx.task.update({
      where: { id },
      data: {
        ...fields,
        updated_at: now,
        ...(changesState ? { state, state_changed_at: now, next_run: state === "active" ? now : null } : {}),
        // Completing a watch is the other answer to "stop watching, or keep watching?".
        ...(changesState && state === "completed" ? { answered_execution_id: current.notified_execution_id } : {}),
      },
      include: taskInclude,
    });
    return { row, changeId: await recordChanges(tx, id, definitionChanges(before, ownerTaskView(row)), now) };
  });
  if (!changesState) return ownerTaskView(row);

  // The scheduler is called after the commit (the embedded database serialises transactions across its
  // clients, so the engine could not enqueue while this transaction is open); when it fails, every change of
  // this request is written back.
  try {
    if (state === "active") await scheduler().arm(current, now);
    else await scheduler().disarm(id, current.next_run);
  } catch (e) {
    await restoreTask(current, changeId);
    const reason = e instanceof Error ? e.message : String(e);
    throw new DomainError("internal", `Failed to change task state: ${reason}. Task update rolled back.`, { cause: e });
  }
  return ownerTaskView(row);
}

async function restoreTask(before: TaskRow, changeId: string | null) {
  await db.$transaction([
    ...(changeId ? [db.taskChange.delete({ where: { id: changeId } })] : []),
    db.taskNotification.deleteMany({ where: { task_id: before.id } }),
    db.taskNotification.createMany({
      data: before.notifications.map(({ id, task_id, type, config, created_at }) => ({
        id,
        task_id,
        type,
        config: config as Prisma.InputJsonValue,
        created_at,
      })),
    }),
    db.task.update({
      where: { id: before.id },
      data: {
        ...pickDefinition(before),
        state: before.state,
        state_changed_at: before.state_changed_at,
        next_run: before.next_run,
        updated_at: before.updated_at,
      },
    }),
  ]);
}

export async function deleteTask(user: User, id: string) {
  const task = await db.task.findFirst({
    where: { id, user_id: user.id },
    select: {
      id: true,
      next_run: true,
      forked_from_task_id: true,
      executions: { where: { status: { in: ["pending", "running"] } }, select: { id: true } },
    },
  });
  if (!task) throw notFound();
  await db.$transaction(async (tx) => {
    const query = prismaQuery(tx);
    // The delete's count update (a trigger) takes the account's row: taken here first, as everywhere.
    await lockAccount(query, user.id);
    await tx.task.delete({ where: { id } });
    // A deleted fork no longer counts for the watch it was forked from.
    await recountSubscribers(query, [task.forked_from_task_id]);
  });
  await scheduler().disarm(id, task.next_run);
  for (const e of task.executions) await scheduler().cancelRun(e.id);
}

export async function setVisibility(user: User, id: string, isPublic: boolean) {
  const task = await db.task.findFirst({ where: { id, user_id: user.id }, select: { id: true, is_public: true } });
  if (!task) throw notFound();
  if (isPublic && !user.username)
    throw new DomainError("invalid", "You must set a username before making tasks public");
  const now = new Date();
  await db.$transaction(async (tx) => {
    await tx.task.update({ where: { id }, data: { is_public: isPublic, updated_at: now } });
    if (task.is_public !== isPublic)
      await recordChanges(tx, id, { is_public: { from: task.is_public, to: isPublic } }, now);
    if (!isPublic) await endAllFollows(tx, id);
  });
  return { is_public: isPublic };
}

export async function forkTask(user: User, id: string, name?: string) {
  const source = await findTask(id);
  const own = source?.user_id === user.id;
  if (!source || (!own && !source.is_public)) throw notFound();
  const forkName = name ?? `${source.name.slice(0, MAX_NAME - " (Copy)".length)} (Copy)`;
  // Names are not unique (two watches may share one), so a fork never collides.
  const row = await insertTask(
    user.id,
    {
      id: randomUUID(),
      user_id: user.id,
      ...pickDefinition(source),
      name: forkName,
      state: "paused",
      is_public: false,
      forked_from_task_id: source.id,
    },
    own ? source.notifications.map(({ type, config }) => ({ type, config: config as Prisma.InputJsonValue })) : [],
    own ? undefined : (query) => recountSubscribers(query, [source.id]),
  );
  return ownerTaskView(row);
}

/**
 * A public watch as anyone but its owner sees it, with its entity tag. A reader other than the owner counts a view,
 * unless its copy is current (`ifNoneMatch` names the tag): then nothing is counted and `notModified` is set. The tag
 * covers the view without `view_count`, which every counted read changes: over the whole view no tag would match
 * twice. So a 304 may stand for a copy whose view_count is behind (the tag is weak).
 */
export async function readPublicTask(id: string, readerId: string | null, ifNoneMatch: string | null = null) {
  const row = await findTask(id, { publicLast: true });
  if (!row?.is_public) throw notFound();
  const view = publicTaskView(row);
  const etag = entityTag(JSON.stringify({ ...view, view_count: undefined }), true);
  if (matchesIfNoneMatch(ifNoneMatch, etag)) return { view, etag, notModified: true };
  if (row.user_id !== readerId) {
    countView(id);
    view.view_count += 1;
  }
  return { view, etag, notModified: false };
}

/** The pause button behind the link in notification emails (server/notify/links.ts). */
export async function pauseFromLink(taskId: string, token: string) {
  if ((await readToken("pause", token)) !== taskId) throw new DomainError("invalid", "Invalid or expired link");
  const task = await db.task.findUnique({ where: { id: taskId } });
  if (!task) throw notFound();
  if (task.state === "active") {
    const now = new Date();
    await db.$transaction(async (tx) => {
      await tx.task.update({ where: { id: taskId }, data: { state: "paused", state_changed_at: now, next_run: null } });
      await recordChanges(tx, taskId, { state: { from: "active", to: "paused" } }, now);
    });
    await scheduler().disarm(taskId, task.next_run);
  }
  return { status: "paused" as const };
}
