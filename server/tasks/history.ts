/**
 * A watch's definition history: every update that changes a definition field, its state, channels or visibility is
 * one entry with each changed field's value before and after, written in the update's own transaction.
 */
import { notFound } from "../errors";
import { db, type Prisma, type User } from "../db";
import { DEFINITION_FIELDS, type TaskView } from "./schemas";

/** What an entry compares: the definition, and the watch's state, channels and visibility. */
const HISTORY_FIELDS = [
  ...DEFINITION_FIELDS,
  "state",
  "notifications",
  "is_public",
] as const satisfies readonly (keyof TaskView)[];

export type Changes = Record<string, { from: unknown; to: unknown }>;

/** The definition fields that differ between two views of a watch, or null when none does. */
export function definitionChanges(before: TaskView, after: TaskView): Changes | null {
  const changes: Changes = {};
  for (const field of HISTORY_FIELDS)
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      changes[field] = { from: before[field], to: after[field] };
  return Object.keys(changes).length ? changes : null;
}

/** Writes the entry when something changed; its id (null when nothing did). */
export async function recordChanges(tx: Prisma.TransactionClient, taskId: string, changes: Changes | null, at: Date) {
  if (!changes) return null;
  return (
    await tx.taskChange.create({
      data: { task_id: taskId, changes: changes as Prisma.InputJsonValue, at },
      select: { id: true },
    })
  ).id;
}

export async function listHistory(user: User, taskId: string, page: { limit: number; offset: number }) {
  const owned = await db.task.findFirst({ where: { id: taskId, user_id: user.id }, select: { id: true } });
  if (!owned) throw notFound();
  const rows = await db.taskChange.findMany({
    where: { task_id: taskId },
    orderBy: { at: "desc" },
    take: page.limit,
    skip: page.offset,
  });
  return rows.map((r) => ({ at: r.at.toISOString(), changes: r.changes as Changes }));
}
