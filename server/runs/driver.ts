/** The one place that chooses how watches run: Inngest when configured, else embedded DBOS. */
import { env } from "../env";
import type { Database } from "../db";
import type { Scheduler } from "../scheduler";

export const inngestConfigured = () =>
  !!(env.INNGEST_EVENT_KEY && env.INNGEST_SIGNING_KEY) || env.INNGEST_DEV || !!env.INNGEST_BASE_URL;

export async function startDriver(database: Database): Promise<{ scheduler: Scheduler; stop: () => Promise<void> }> {
  if (inngestConfigured()) {
    const { inngestScheduler } = await import("./inngest");
    return { scheduler: inngestScheduler, stop: async () => {} };
  }
  const { startDbos, stopDbos } = await import("./dbos");
  return { scheduler: await startDbos(database.url, database.embedded), stop: stopDbos };
}
