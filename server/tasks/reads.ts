/**
 * Every read of watches for display: the rows with what each view shows alongside them (channels, the latest
 * execution, the finding the verdict stands on, the owner's username), in one SQL statement (see `../db/sql`).
 * Writes use Prisma (`taskInclude` in `./views` loads the same).
 */
import { Prisma, type Task } from "../db";
import { reviveDates, sql } from "../db/sql";
import { FAILED_NOTICE_AFTER } from "../../lib/outcome";
import type { ListState } from "./schemas";
import { SHOWN_PUBLICLY, verdictFor, type TaskRow } from "./views";
import { latestDeliveriesColumn } from "../notify/deliveries";

export type TaskFilter = {
  id?: string;
  ids?: string[];
  userId?: string;
  /** The watch's own state, or what it found (`ListState`). */
  state?: ListState;
  publicOnly?: boolean;
  /** Case-insensitive substring of the name, query or condition. */
  search?: string;
  /** Words that must all appear in the name, query or condition (any case). */
  words?: string[];
};
export type TaskOrder = "recent" | "popular" | "attention" | "updated" | "name";

/**
 * The attention order's rank: 0 a failing watch (the streak the owner is told about) or one whose latest notice
 * failed, 1 a finding the owner has not seen, 2 other findings, 3 the rest. The same expression (FAILED_NOTICE_AFTER
 * written as 3) is indexed with user_id by the migration `inbox` (tasks_attention_idx): a page of one user's watches in
 * this order is a range of that index.
 */
const ATTENTION_RANK = `CASE WHEN t.failure_streak >= ${FAILED_NOTICE_AFTER} OR t.delivery_failed THEN 0
        WHEN t.finding_at IS NOT NULL AND (t.seen_at IS NULL OR t.finding_at > t.seen_at) THEN 1
        WHEN t.finding_at IS NOT NULL THEN 2 ELSE 3 END`;

const ORDER: Record<TaskOrder, string> = {
  recent: "t.created_at DESC, t.id DESC",
  popular: "t.subscriber_count DESC, t.view_count DESC, t.created_at DESC, t.id DESC",
  attention: `${ATTENTION_RANK}, t.finding_at DESC NULLS LAST, t.next_run ASC NULLS LAST, t.id`,
  updated: "coalesce(t.updated_at, t.created_at) DESC, t.id",
  name: "lower(t.name), t.id",
};

/** A notified finding stands (the verdict's `met` and `resolved`, `resolution` in ./views). */
const MET = `EXISTS (SELECT 1 FROM executions e WHERE e.id = t.notified_execution_id AND e.retracted_by_execution_id IS NULL)`;
const FAILING = `(t.failure_streak >= ${FAILED_NOTICE_AFTER} OR t.delivery_failed)`;
const STATES: Record<ListState, string> = {
  active: `t.state = 'active'`,
  paused: `t.state = 'paused'`,
  completed: `t.state = 'completed'`,
  met: MET,
  held: `t.held_reason IS NOT NULL`,
  failing: FAILING,
  watching: `t.state = 'active' AND NOT ${MET} AND t.held_reason IS NULL AND NOT ${FAILING}`,
};

/**
 * The searched text of a watch (name, query and condition, lowered): a column the database computes when the watch is
 * written (migration `searched_text`), which the public directory's trigram index covers.
 */
const SEARCHED = "t.searched";

/** A watch's own columns as Prisma's `Task` has them (`t.*` would also carry `searched`, which only a search reads). */
export const TASK_COLUMNS = Object.values(Prisma.TaskScalarFieldEnum)
  .map((c) => `t.${c}`)
  .join(", ");

const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function where(filter: TaskFilter) {
  const clauses: string[] = [];
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  if (filter.id) clauses.push(`t.id = ${param(filter.id)}::uuid`);
  if (filter.ids) clauses.push(`t.id = ANY(${param(filter.ids)}::uuid[])`);
  if (filter.userId) clauses.push(`t.user_id = ${param(filter.userId)}::uuid`);
  if (filter.state) clauses.push(STATES[filter.state]);
  if (filter.publicOnly) clauses.push("t.is_public");
  // One LIKE over the three, lowered alike: with `publicOnly`, the trigram index answers it; an owner's own watches
  // are a range of the user_id index, read and matched.
  const searches = [...(filter.search ? [filter.search] : []), ...(filter.words ?? [])];
  for (const s of searches) clauses.push(`${SEARCHED} LIKE lower(${param(likePattern(s))})`);
  return { text: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", values, param, searches: searches.length > 0 };
}

type Raw = Task & {
  owner_username: string | null;
  notifications: Record<string, unknown>[];
  executions: { error_message: string | null }[];
  last_execution: Record<string, unknown> | null;
  last_public_execution?: Record<string, unknown> | null;
  notified_execution: Record<string, unknown> | null;
};

/** The finding a watch's verdict stands on (`NotifiedExecution` in `./views`), as a column `notified_execution`. */
const NOTIFIED_EXECUTION = `(SELECT json_build_object('retracted_by_execution_id', e.retracted_by_execution_id, 'completed_at', e.completed_at,
                                  'created_at', e.created_at, 'result', e.result, 'grounding_sources', e.grounding_sources)
           FROM executions e WHERE e.id = t.notified_execution_id) AS notified_execution`;

/**
 * The error of the latest failed run while checks fail (what the verdict's `cant_check` is decided from), as a column
 * `executions` in the shape of `taskInclude`'s.
 */
const LAST_FAILURE = `CASE WHEN t.failure_streak > 0 THEN
            (SELECT coalesce(json_agg(f), '[]') FROM (SELECT e.error_message FROM executions e
               WHERE e.task_id = t.id AND e.status = 'failed' ORDER BY e.created_at DESC LIMIT 1) f)
            ELSE '[]' END AS executions`;

/** The open run (pending or running) of a watch, as a column `open_run`: the verdict's `running`. */
const OPEN_RUN = `(SELECT json_build_object('status', e.status, 'started_at', e.started_at) FROM executions e
            WHERE e.id = t.last_execution_id AND e.status IN ('pending', 'running')) AS open_run`;

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

type Page = { order?: TaskOrder; limit?: number; offset?: number; publicLast?: boolean; deliveriesOf?: string };

/**
 * `publicLast`: also read the last run a non-owner may see (for public views). `deliveriesOf`: a user whose own
 * watches are read with what became of their latest notice (`deliveries`).
 */
export async function findTasks(filter: TaskFilter, page?: Page): Promise<TaskRow[]> {
  return (await selectTasks(filter, page)).rows;
}

/**
 * A page of watches and how many match in all (`countTasks` with `cap`), in one statement: the count is a column the
 * database works out once (an uncorrelated subquery; for a search without a cap, a window over the scan that matches
 * the page). A page past the end has no row to carry it and counts on its own; without a `limit` every match is read
 * and counted by its length.
 */
export async function pageOfTasks(
  filter: TaskFilter,
  page: Page,
  cap?: number,
): Promise<{ rows: TaskRow[]; total: number }> {
  if (page.limit === undefined) {
    const rows = await findTasks(filter, page);
    return { rows, total: rows.length };
  }
  const { rows, total } = await selectTasks(filter, page, { cap });
  if (total !== undefined) return { rows, total };
  return { rows, total: page.offset ? await countTasks(filter, cap) : 0 };
}

async function selectTasks(
  filter: TaskFilter,
  page?: Page,
  counted?: { cap?: number },
): Promise<{ rows: TaskRow[]; total?: number }> {
  if (filter.ids?.length === 0) return { rows: [] };
  const w = where(filter);
  const deliveries = page?.deliveriesOf
    ? `${latestDeliveriesColumn(`${w.param(page.deliveriesOf)}::uuid`)} AS deliveries,`
    : "";
  const total = !counted
    ? ""
    : w.searches && counted.cap === undefined
      ? // Every watch in range is read and matched for the page anyway: counted in that pass, not in a second one.
        "(count(*) OVER ())::int AS total_count,"
      : `(${countText(w, counted.cap)}) AS total_count,`;
  const limit = page?.limit === undefined ? "" : ` LIMIT ${w.param(page.limit)}`;
  const offset = page?.offset ? ` OFFSET ${w.param(page.offset)}` : "";
  const rows = await sql<Raw & { total_count?: number }>(
    `SELECT ${TASK_COLUMNS}, u.username AS owner_username,
            coalesce((SELECT json_agg(n) FROM task_notifications n WHERE n.task_id = t.id), '[]') AS notifications,
            (SELECT to_json(e) FROM executions e WHERE e.id = t.last_execution_id) AS last_execution,
            ${page?.publicLast ? `${LAST_PUBLIC_EXECUTION},` : ""} ${deliveries} ${total}
            ${LAST_FAILURE}, ${NOTIFIED_EXECUTION}
       FROM tasks t JOIN users u ON u.id = t.user_id
       ${w.text}
      ORDER BY ${ORDER[page?.order ?? "recent"]}${limit}${offset}`,
    w.values,
  );
  return { rows: rows.map(toRow), total: rows[0]?.total_count };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A watch by id, or null (also for a string that is not a UUID, e.g. from a page URL). */
export async function findTask(
  id: string,
  opts: { publicLast?: boolean; deliveriesOf?: string } = {},
): Promise<TaskRow | null> {
  return UUID.test(id) ? ((await findTasks({ id }, opts))[0] ?? null) : null;
}

export type VerdictRow = Pick<
  TaskRow,
  | "id"
  | "is_public"
  | "state"
  | "notified_execution"
  | "name"
  | "condition_description"
  | "state_changed_at"
  | "next_run"
  | "failure_streak"
  | "failing_since"
  | "latest_answer"
  | "latest_answer_at"
  | "public_answer"
  | "public_answer_at"
  | "held_reason"
  | "finding_at"
  | "executions"
> & {
  owner_username: string | null;
  open_run: { status: string; started_at: Date } | null;
};

/**
 * What the badge, the Open Graph image and emails need of a watch: whether it is public, its verdict's inputs
 * (`verdictFor` in ./views), its latest answers, its name and condition and its owner's username; one narrow statement.
 */
export async function findVerdict(id: string): Promise<VerdictRow | null> {
  if (!UUID.test(id)) return null;
  const [row] = await sql<
    Omit<VerdictRow, "notified_execution" | "open_run"> & {
      notified_execution: Record<string, unknown> | null;
      open_run: Record<string, unknown> | null;
    }
  >(
    `SELECT t.id, t.is_public, t.state, t.name, t.condition_description, t.state_changed_at, t.next_run, t.failure_streak,
            t.failing_since, t.latest_answer, t.latest_answer_at, t.public_answer, t.public_answer_at, t.held_reason,
            t.finding_at, u.username AS owner_username, ${OPEN_RUN}, ${LAST_FAILURE}, ${NOTIFIED_EXECUTION}
       FROM tasks t JOIN users u ON u.id = t.user_id WHERE t.id = $1::uuid`,
    [id],
  );
  if (!row) return null;
  if (row.notified_execution) reviveDates(row.notified_execution, ["completed_at", "created_at"]);
  if (row.open_run) reviveDates(row.open_run, ["started_at"]);
  return row as VerdictRow;
}

/**
 * A watch's verdict and latest answer as its owner or anyone else reads them (what an email's verdict strip says, with
 * `verdictLabel`/`verdictSentence` of server/public/verdict.ts); null when the watch is gone.
 */
export async function readVerdict(id: string, audience: "owner" | "public") {
  const row = await findVerdict(id);
  return (
    row && {
      verdict: verdictFor(row, audience),
      latest_answer: audience === "owner" ? row.latest_answer : row.public_answer,
    }
  );
}

/** How many watches match; with `cap`, counting stops past it (a count of cap + 1 means "more than cap"). */
export async function countTasks(filter: TaskFilter, cap?: number): Promise<number> {
  const w = where(filter);
  const [row] = await sql<{ n: number }>(countText(w, cap), w.values);
  return row!.n;
}

function countText(w: ReturnType<typeof where>, cap?: number) {
  return cap === undefined
    ? `SELECT count(*)::int AS n FROM tasks t ${w.text}`
    : `SELECT count(*)::int AS n FROM (SELECT 1 FROM tasks t ${w.text} LIMIT ${w.param(cap + 1)}) capped`;
}
