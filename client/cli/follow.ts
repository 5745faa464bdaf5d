/** `watchctl follow <id>`, `unfollow <id>` and `following`: public watches, on your own channels. */
import { UsageError, type Cli } from "./context";
import { channelLine, table } from "./format";
import { collect, notificationsFrom, NOTIFY_HELP, type ChannelOptions } from "./options";

export function register({ program, client, print }: Cli) {
  program
    .command("follow <id>")
    .description("follow a public watch with your own channels (again: replaces them)")
    .option("--email <address>", "notify this address")
    .option("--webhook <url>", "notify this URL (signed with your webhook secret)")
    .option("--notify <url>", NOTIFY_HELP, collect)
    .action(async (id: string, o: ChannelOptions) => {
      const notifications = notificationsFrom(o);
      if (!notifications?.length) throw new UsageError("give --email, --webhook or --notify");
      const f = await client().follows.follow(id, notifications);
      print(f, () => `Following ${f.task_id}: ${f.notifications.map(channelLine).join(", ")}\n`);
    });

  program
    .command("unfollow <id>")
    .description("stop following a watch")
    .action(async (id: string) => {
      await client().follows.unfollow(id);
      print({ task_id: id, following: false }, () => `No longer following ${id}\n`);
    });

  program
    .command("following")
    .description("the public watches you follow")
    .action(async () => {
      const list = await client().follows.list();
      const rows = list.map((f) => ({
        id: f.task.id,
        name: f.task.name,
        status: f.task.resolution.status,
        channels: f.notifications.map((n) => n.type).join(", "),
        since: f.created_at,
      }));
      print(list, () => table(rows, ["id", "name", "status", "channels", "since"]));
    });
}
