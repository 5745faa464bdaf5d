/** The one place that chooses how watches run: Inngest when configured, else embedded DBOS. */
import { env } from "../env";
import type { Database } from "../db";
import type { Scheduler } from "../scheduler";

export const inngestConfigured = () =>
  !!(env.INNGEST_EVENT_KEY && env.INNGEST_SIGNING_KEY) || env.INNGEST_DEV || !!env.INNGEST_BASE_URL;

export type Driver = {
  scheduler: Scheduler;
  /** Takes no new run; resolves when the runs under way have finished, or at `deadline` (ms). */
  drain: (deadline: number) => Promise<void>;
  stop: () => Promise<void>;
};

export async function startDriver(database: Database): Promise<Driver> {
  if (inngestConfigured()) {
    // Inngest runs each step as a request to /api/inngest: the server's drain of requests is the drain of runs.
    const { inngestScheduler } = await import("./inngest");
    return { scheduler: inngestScheduler, drain: async () => {}, stop: async () => {} };
  }
  const { startDbos, drainDbos, stopDbos } = await import("./dbos");
  return { scheduler: await startDbos(database.url, database.embedded), drain: drainDbos, stop: stopDbos };
}
