/**
 * Fixed windows counted in memory, one per bucket and key: the store of one process, or of the primary for all the
 * workers of one `npm start` (scripts/processes.mjs). Plain JavaScript for the primary, which runs no bundled code.
 */
export function fixedWindows() {
  const windows = new Map();
  return {
    /**
     * Counts one request of `id` in the window of `windowMs` that holds `now`.
     * @returns {{ success: boolean, limit: number, remaining: number, reset: number }}
     */
    take(id, limit, windowMs, now) {
      const start = now - (now % windowMs);
      let w = windows.get(id);
      if (!w || w.start !== start) {
        if (windows.size > 50_000) for (const [k, v] of windows) if (v.start !== start) windows.delete(k);
        w = { start, count: 0 };
        windows.set(id, w);
      }
      w.count++;
      return { success: w.count <= limit, limit, remaining: Math.max(0, limit - w.count), reset: start + windowMs };
    },
  };
}
