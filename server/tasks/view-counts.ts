/**
 * Public page views, counted in memory and written in batches: a popular watch read by many clients at once would
 * otherwise be one hot row updated per request. Views wait at most FLUSH_MS before one statement adds them all;
 * until then this process adds its pending views to every view it serves, so its own counts are exact at once and
 * every replica's within FLUSH_MS. A crash loses at most FLUSH_MS of views.
 */
import { sql } from "../db/sql";

const FLUSH_MS = 2_000;

const g = globalThis as unknown as { __watchViews?: { pending: Map<string, number>; timer: NodeJS.Timeout | null } };
// One buffer per process (Next may evaluate this module in more than one bundle).
const state = (g.__watchViews ??= { pending: new Map(), timer: null });

export function countView(taskId: string) {
  state.pending.set(taskId, (state.pending.get(taskId) ?? 0) + 1);
  state.timer ??= setTimeout(() => void flushViewCounts().catch(() => {}), FLUSH_MS).unref();
}

/** Views of `taskId` counted here and not yet written. */
export const pendingViews = (taskId: string) => state.pending.get(taskId) ?? 0;

/** Writes the pending views in one statement; on failure they stay pending for the next flush. */
export async function flushViewCounts() {
  if (state.timer) clearTimeout(state.timer);
  state.timer = null;
  if (!state.pending.size) return;
  const batch = [...state.pending];
  state.pending = new Map();
  try {
    await sql(
      `UPDATE tasks t SET view_count = t.view_count + v.n FROM unnest($1::uuid[], $2::int[]) AS v(id, n) WHERE t.id = v.id`,
      [batch.map(([id]) => id), batch.map(([, n]) => n)],
    );
  } catch (e) {
    for (const [id, n] of batch) state.pending.set(id, (state.pending.get(id) ?? 0) + n);
    state.timer ??= setTimeout(() => void flushViewCounts().catch(() => {}), FLUSH_MS).unref();
    throw e;
  }
}
