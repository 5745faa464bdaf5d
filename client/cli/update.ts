/** `watchctl update <id>`: change only what the options give (a --notify replaces the channel of its type). */
import type { Notification } from "../index";
import { UsageError, type Cli } from "./context";
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
    .command("update <id>")
    .description("change a watch (only the options given)")
    .option("--name <name>")
    .option("--query <query>")
    .option("--when <condition>")
    .option("--email <address>", "replace the email channel")
    .option("--webhook <url>", "replace the webhook channel")
    .option("--notify <url>", `${NOTIFY_HELP}; replaces the channel of its type`, collect)
    .addOption(minConfidence())
    .addOption(minSources())
    .addOption(checkAtMostEvery())
    .addOption(checkAtLeastEvery())
    .action(async (id: string, o: { name?: string; query?: string; when?: string } & ChannelOptions & Bounds) => {
      const c = client();
      const notifications = notificationsFrom(
        o,
        o.email !== undefined || o.webhook !== undefined || o.notify?.length
          ? ((await c.watches.get(id)).notifications as Notification[])
          : [],
      );
      const changes = {
        name: o.name,
        search_query: o.query,
        condition_description: o.when,
        notifications,
        ...boundsFrom(o),
      };
      if (Object.values(changes).every((v) => v === undefined))
        throw new UsageError(
          "nothing to change: give --name, --query, --when, --email, --webhook, --notify or a bound",
        );
      const task = await c.watches.update(id, changes);
      print(task, () => describeTask(task));
    });
}
