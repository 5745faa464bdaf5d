/**
 * Every read of watches for display: the rows with what each view shows alongside them (channels, the latest
 * execution, the finding the verdict stands on, the owner's username), in one SQL statement (see `../db/sql`).
 * Writes use Prisma (`taskInclude` in `./views` loads the same).
 */
import type { Task, TaskState } from "../db";
import { reviveDates, sql } from "../db/sql";
import { SHOWN_PUBLICLY, type TaskRow } from "./views";

export type TaskFilter = {
  id?: string;
  ids?: string[];
  userId?: string;
  state?: TaskState;
  publicOnly?: boolean;
  /** Case-insensitive substring of the name, query or condition. */
  search?: string;
};
export type TaskOrder = "recent" | "popular";

const ORDER: Record<TaskOrder, string> = {
  recent: "t.created_at DESC",
  popular: "t.subscriber_count DESC, t.view_count DESC, t.created_at DESC",
};

const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function where(filter: TaskFilter) {
  const clauses: string[] = [];
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  if (filter.id) clauses.push(`t.id = ${param(filter.id)}::uuid`);
  if (filter.ids) clauses.push(`t.id = ANY(${param(filter.ids)}::uuid[])`);
  if (filter.userId) clauses.push(`t.user_id = ${param(filter.userId)}::uuid`);
  if (filter.state) clauses.push(`t.state = ${param(filter.state)}::"TaskState"`);
  if (filter.publicOnly) clauses.push("t.is_public");
  if (filter.search) {
    // The expression of the trigram index over public watches (migration public_search_trgm_partial): one LIKE over
    // the three, lowered alike; with `publicOnly`, as the index covers only those.
    clauses.push(
      `lower(t.name || ' ' || t.search_query || ' ' || t.condition_description) LIKE lower(${param(likePattern(filter.search))})`,
    );
  }
  return { text: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", values, param };
}

type Raw = Task & {
  owner_username: string | null;
  notifications: Record<string, unknown>[];
  last_execution: Record<string, unknown> | null;
  last_public_execution?: Record<string, unknown> | null;
  notified_execution: Record<string, unknown> | null;
};

/** The finding a watch's verdict stands on (`NotifiedExecution` in `./views`), as a column `notified_execution`. */
const NOTIFIED_EXECUTION = `(SELECT json_build_object('retracted_by_execution_id', e.retracted_by_execution_id, 'completed_at', e.completed_at,
                                  'created_at', e.created_at, 'result', e.result, 'grounding_sources', e.grounding_sources)
           FROM executions e WHERE e.id = t.notified_execution_id) AS notified_execution`;

/**
 * The last run anyone but the owner may see (server/tasks/views.ts decides which), as a column
 * `last_public_execution`: the last run itself unless held back, else the latest one shown before it.
 */
const LAST_PUBLIC_EXECUTION = `coalesce(
            (SELECT to_json(e) FROM executions e WHERE e.id = t.last_execution_id AND ${SHOWN_PUBLICLY}),
            (SELECT to_json(e) FROM executions e WHERE t.last_execution_id IS NOT NULL AND e.task_id = t.id AND ${SHOWN_PUBLICLY}
              ORDER BY e.created_at DESC LIMIT 1)) AS last_public_execution`;

export const EXECUTION_DATES = ["started_at", "completed_at", "created_at"];

/** In place: the row is new and this runs for every listed watch. */
function toRow(raw: Raw): TaskRow {
  for (const n of raw.notifications) reviveDates(n, ["created_at"]);
  if (raw.last_execution) reviveDates(raw.last_execution, EXECUTION_DATES);
  if (raw.last_public_execution) reviveDates(raw.last_public_execution, EXECUTION_DATES);
  if (raw.notified_execution) reviveDates(raw.notified_execution, ["completed_at", "created_at"]);
  const row = raw as unknown as TaskRow;
  row.user = { username: raw.owner_username };
  return row;
}

/** `publicLast`: also read the last run a non-owner may see (for public views). */
export async function findTasks(
  filter: TaskFilter,
  page?: { order?: TaskOrder; limit?: number; offset?: number; publicLast?: boolean },
): Promise<TaskRow[]> {
  if (filter.ids?.length === 0) return [];
  const w = where(filter);
  const limit = page?.limit === undefined ? "" : ` LIMIT ${w.param(page.limit)}`;
  const offset = page?.offset ? ` OFFSET ${w.param(page.offset)}` : "";
  const rows = await sql<Raw>(
    `SELECT t.*, u.username AS owner_username,
            coalesce((SELECT json_agg(n) FROM task_notifications n WHERE n.task_id = t.id), '[]') AS notifications,
            (SELECT to_json(e) FROM executions e WHERE e.id = t.last_execution_id) AS last_execution,
            ${page?.publicLast ? `${LAST_PUBLIC_EXECUTION},` : ""}
            ${NOTIFIED_EXECUTION}
       FROM tasks t JOIN users u ON u.id = t.user_id
       ${w.text}
      ORDER BY ${ORDER[page?.order ?? "recent"]}${limit}${offset}`,
    w.values,
  );
  return rows.map(toRow);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A watch by id, or null (also for a string that is not a UUID, e.g. from a page URL). */
export async function findTask(id: string, opts: { publicLast?: boolean } = {}): Promise<TaskRow | null> {
  return UUID.test(id) ? ((await findTasks({ id }, opts))[0] ?? null) : null;
}

export type VerdictRow = Pick<
  TaskRow,
  "is_public" | "state" | "notified_execution" | "name" | "condition_description"
> & {
  owner_username: string | null;
};

/**
 * What the badge and the Open Graph image need of a watch: whether it is public, its verdict's inputs, its name and
 * condition and its owner's username; one narrow statement.
 */
export async function findVerdict(id: string): Promise<VerdictRow | null> {
  if (!UUID.test(id)) return null;
  const [row] = await sql<
    Omit<VerdictRow, "notified_execution"> & { notified_execution: Record<string, unknown> | null }
  >(
    `SELECT t.is_public, t.state, t.name, t.condition_description, u.username AS owner_username, ${NOTIFIED_EXECUTION}
       FROM tasks t JOIN users u ON u.id = t.user_id WHERE t.id = $1::uuid`,
    [id],
  );
  if (!row) return null;
  if (row.notified_execution) reviveDates(row.notified_execution, ["completed_at", "created_at"]);
  return row as VerdictRow;
}

/** How many watches match; with `cap`, counting stops past it (a count of cap + 1 means "more than cap"). */
export async function countTasks(filter: TaskFilter, cap?: number): Promise<number> {
  const w = where(filter);
  const text =
    cap === undefined
      ? `SELECT count(*)::int AS n FROM tasks t ${w.text}`
      : `SELECT count(*)::int AS n FROM (SELECT 1 FROM tasks t ${w.text} LIMIT ${w.param(cap + 1)}) capped`;
  const [row] = await sql<{ n: number }>(text, w.values);
  return row!.n;
}
