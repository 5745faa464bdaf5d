/**
 * A watch's `subscriber_count`: its confirmed followers by email (one per mailbox), plus the users who follow it signed
 * in or hold a fork of it, each user once and never its owner. It is counted again from those rows, in the
 * transaction of every change to them (a follow confirmed or ended, a fork made or deleted, an account deleted), so
 * it cannot drift: deleting the fork or the account takes its count back.
 */
import type { Query } from "../db/sql";

const COUNT = `(SELECT count(DISTINCT f.mailbox) FROM follows f
                 WHERE f.task_id = t.id AND f.confirmed_at IS NOT NULL AND f.user_id IS NULL)
             + (SELECT count(*) FROM (
                  SELECT f.user_id FROM follows f WHERE f.task_id = t.id AND f.confirmed_at IS NOT NULL AND f.user_id IS NOT NULL
                  UNION
                  SELECT k.user_id FROM tasks k WHERE k.forked_from_task_id = t.id AND k.user_id <> t.user_id) u)`;

/**
 * Counts the watches' subscribers again. Their rows are locked first, in a statement of their own: the count then
 * reads with a snapshot taken after any concurrent change to the same watch has committed.
 */
export async function recountSubscribers(query: Query, taskIds: (string | null | undefined)[]) {
  const ids = [...new Set(taskIds.filter((id): id is string => !!id))].sort();
  if (!ids.length) return;
  await query(`SELECT 1 FROM tasks WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [ids]);
  await query(`UPDATE tasks t SET subscriber_count = ${COUNT} WHERE t.id = ANY($1::uuid[])`, [ids]);
}
