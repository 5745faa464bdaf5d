/** `watchctl create <query>`: a new watch, with its channels and bounds. */
import type { Cli } from "./context";
import { describeTask } from "./format";
import {
  boundsFrom,
  checkAtLeastEvery,
  checkAtMostEvery,
  collect,
  minConfidence,
  minSources,
  notificationsFrom,
  NOTIFY_HELP,
  type Bounds,
  type ChannelOptions,
} from "./options";

export function register({ program, client, print }: Cli) {
  program
    .command("create <query>")
    .description("create a watch")
    .option("--when <condition>", "what counts as news (default: the query)")
    .option("--name <name>", "a name (default: the query)")
    .option("--email <address>", "notify this address")
    .option("--webhook <url>", "notify this URL (signed with Standard Webhooks)")
    .option("--notify <url>", NOTIFY_HELP, collect)
    .option("--paused", "create it paused")
    .option("--run", "run the first check now")
    .addOption(minConfidence())
    .addOption(minSources())
    .addOption(checkAtMostEvery())
    .addOption(checkAtLeastEvery())
    .action(
      async (
        query: string,
        o: { when?: string; name?: string; paused?: boolean; run?: boolean } & ChannelOptions & Bounds,
      ) => {
        const task = await client().watches.create({
          search_query: query,
          condition_description: o.when,
          name: o.name ?? query.slice(0, 200),
          state: o.paused ? "paused" : "active",
          run_immediately: o.run,
          notifications: notificationsFrom(o) ?? [],
          ...boundsFrom(o),
        });
        print(task, () => `Created ${task.id}\n${describeTask(task)}`);
      },
    );
}
