/**
 * A watch's findings: one entry per distinct thing its agent found, with how many runs confirmed it. The rows are kept
 * by the run's record transaction (`recordFinding`, server/runs/steps.ts), so a read is one indexed, paged query.
 */
import { createHash } from "node:crypto";
import { transaction, type Query } from "../db/sql";
import { pageAndTotal } from "../db/paging";
import { db, type Finding, type User } from "../db";
import { DomainError, notFound } from "../errors";
import { scheduler } from "../scheduler";
import type { Source } from "../agent/sources";
import { firstSentence } from "./results";
import { findingView, PUBLIC_FINDING_STATUSES } from "./views";

export type FindingPage = { limit: number; offset: number };

/** Newest first: the order of the API, the pages and the feeds. */
const NEWEST = [{ first_found_at: "desc" as const }, { id: "asc" as const }];

/** The owner's findings of a watch, held ones included; `total` for X-Total-Count. */
export async function listFindings(user: User, taskId: string, page: FindingPage) {
  const task = await db.task.findFirst({ where: { id: taskId, user_id: user.id }, select: { id: true } });
  if (!task) throw notFound();
  return readFindings(taskId, page, false);
}

/** A public watch's findings: notified and retracted ones only. */
export async function listPublicFindings(taskId: string, page: FindingPage) {
  const task = await db.task.findFirst({ where: { id: taskId, is_public: true }, select: { id: true } });
  if (!task) throw notFound();
  return readFindings(taskId, page, true);
}

async function readFindings(taskId: string, page: FindingPage, publicOnly: boolean) {
  const where = { task_id: taskId, ...(publicOnly ? { status: { in: [...PUBLIC_FINDING_STATUSES] } } : {}) };
  const { rows, total } = await pageAndTotal(
    page,
    (take) => db.finding.findMany({ where, orderBy: NEWEST, take, skip: page.offset }),
    () => db.finding.count({ where }),
  );
  return { findings: rows.map(findingView), total };
}

/**
 * A finding's anchor on the watch's page and its feed items' id: stable for the watch and the key, and made only of
 * safe characters whatever the agent named it.
 */
export const findingAnchor = (taskId: string, key: string) =>
  "f-" + createHash("sha256").update(`${taskId}\n${key}`).digest("hex").slice(0, 16);

/** What one run found, as its record step hands it over. */
export type FoundThisRun = {
  key: string;
  title: string;
  answer: string;
  sources: Source[];
  /** The run told the user about it now. */
  notified: boolean;
  /** The run's gate held it back (a new finding that did not clear the watch's bounds): its reason. */
  held: string | null;
};

/**
 * Records a run's finding inside the run's record transaction and says whether it is a new one. A key the watch has is
 * confirmed (one more confirmation, the latest run); a new key is a new finding when the run notified it or held it back (a met answer
 * the agent did not call news is no finding). A held run never replaces what the public may see of a finding; a
 * finding notified now stands again even if it was retracted before.
 */
export async function recordFinding(
  query: Query,
  taskId: string,
  executionId: string,
  at: Date,
  f: FoundThisRun,
): Promise<{ created: boolean }> {
  const status = f.notified ? "notified" : f.held !== null ? "held" : null;
  const sources = JSON.stringify(f.sources);
  if (status === null) {
    await query(
      `UPDATE findings SET confirmations = confirmations + 1, last_confirmed_at = $3, last_execution_id = $4, answer = $5,
              sources = $6::jsonb
        WHERE task_id = $1 AND key = $2`,
      [taskId, f.key, at, executionId, f.answer, sources],
    );
    return { created: false };
  }
  const visible = `findings.status <> 'held' AND $6::text = 'held'`; // a held run keeps a public finding as it was
  // xmax is 0 on a row this statement inserted (an updated row carries the updating transaction's id).
  const [row] = await query<{ created: boolean }>(
    `INSERT INTO findings (id, task_id, key, title, answer, sources, status, gate_reason, first_found_at, last_confirmed_at,
                           confirmations, first_execution_id, last_execution_id)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5::jsonb, $6::text::"FindingStatus", $7, $8, $8, 1, $9, $9)
     ON CONFLICT (task_id, key) DO UPDATE SET
       confirmations = findings.confirmations + 1,
       last_confirmed_at = excluded.last_confirmed_at,
       last_execution_id = excluded.last_execution_id,
       status = CASE WHEN $6::text = 'notified' THEN 'notified'::"FindingStatus" ELSE findings.status END,
       retracted_at = CASE WHEN $6::text = 'notified' THEN NULL ELSE findings.retracted_at END,
       gate_reason = CASE WHEN $6::text = 'notified' THEN NULL WHEN findings.status = 'held' THEN excluded.gate_reason
                          ELSE findings.gate_reason END,
       title = CASE WHEN findings.status = 'notified' OR ${visible} THEN findings.title ELSE excluded.title END,
       answer = CASE WHEN ${visible} THEN findings.answer ELSE excluded.answer END,
       sources = CASE WHEN ${visible} THEN findings.sources ELSE excluded.sources END
     RETURNING xmax = 0 AS created`,
    [taskId, f.key, f.title, f.answer, sources, status, f.held, at, executionId],
  );
  return { created: row?.created === true };
}

/** A retraction: the notified finding with this key no longer holds. */
export async function retractFinding(query: Query, taskId: string, key: string, at: Date) {
  await query(
    `UPDATE findings SET status = 'retracted', retracted_at = $3 WHERE task_id = $1 AND key = $2 AND status = 'notified'`,
    [taskId, key, at],
  );
}

/** Why a finding that is not held cannot be sent (409). */
export const NOT_HELD = {
  notified: "This finding was sent already",
  retracted: "This finding was retracted: it no longer holds",
  gone: "The check that found this finding is no longer kept: run the watch again",
} as const;

type FindingRow = Omit<Finding, "sources"> & { sources: unknown };

/**
 * The owner sends a held finding anyway ("Send it anyway"): it becomes the watch's notified finding, as if the run that
 * last found it had cleared the bounds. That run gets the finding's notice (its title, the run's answer) and from then
 * on reads as a notified run everywhere, public views included (a run the owner sent is no longer held back); the
 * watch's public answer moves to it when it is the latest, and the notice goes to the watch's channels and followers
 * through the run's own delivery workflows. Under the watch's lock, and only from `held`: a second call (a double
 * click, two clients) answers 409 and sends nothing more.
 */
export async function sendHeldFinding(user: User, taskId: string, key: string) {
  const sent = await transaction(async (query) => {
    const [task] = await query<{ channels: string[] }>(
      `SELECT array(SELECT c.type::text FROM task_notifications c WHERE c.task_id = t.id ORDER BY c.type) AS channels
         FROM tasks t WHERE t.id = $1 AND t.user_id = $2 FOR UPDATE OF t`,
      [taskId, user.id],
    );
    if (!task) throw notFound();
    const [finding] = await query<FindingRow>(`SELECT * FROM findings WHERE task_id = $1 AND key = $2`, [taskId, key]);
    if (!finding) throw notFound("Finding");
    if (finding.status !== "held") throw new DomainError("conflict", NOT_HELD[finding.status]);
    const [run] = await query<{ id: string; answer: string | null; completed_at: Date }>(
      `UPDATE executions SET notification = jsonb_build_object('title', $3::text, 'markdown', coalesce(result->>'answer', '')),
              notices = coalesce(notices, '[]'::jsonb) || '[{"event": "task.condition_met"}]'::jsonb
        WHERE id = $1 AND task_id = $2 AND status = 'success' AND notification IS NULL
        RETURNING id, result->>'answer' AS answer, completed_at`,
      [finding.last_execution_id, taskId, finding.title],
    );
    if (!run) throw new DomainError("conflict", NOT_HELD.gone);
    const [row] = await query<FindingRow>(
      `UPDATE findings SET status = 'notified', gate_reason = NULL WHERE id = $1 AND status = 'held' RETURNING *`,
      [finding.id],
    );
    // The held state ends with it; what anyone may read moves to this run unless a later one was shown already.
    await query(
      `UPDATE tasks SET notified_finding_key = $2, notified_execution_id = $3, held_reason = NULL,
              public_answer = CASE WHEN public_answer_at IS NULL OR public_answer_at <= $5 THEN $4 ELSE public_answer END,
              public_answer_at = CASE WHEN public_answer_at IS NULL OR public_answer_at <= $5 THEN $5 ELSE public_answer_at END
        WHERE id = $1`,
      [taskId, key, run.id, firstSentence(run.answer ?? ""), run.completed_at],
    );
    return { finding: row!, executionId: run.id, channels: task.channels };
  });
  await scheduler().sendFinding(sent.executionId, sent.channels);
  return findingView(sent.finding as Finding);
}
