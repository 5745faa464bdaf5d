/** `watchctl test-notify`: a test message to channels before any watch has them (or to a watch's, by --watch). */
import type { TestSend } from "../index";
import type { Cli } from "./context";
import { UsageError } from "./context";
import { NOTIFY_HELP, notificationsFrom, type ChannelOptions } from "./options";

export function register({ program, client, print }: Cli) {
  program
    .command("test-notify [url...]")
    .description("send a test message to channels before saving them (an Apprise URL or the service's own)")
    .option("--email <address>", "an email address (another than your account's gets a confirmation link first)")
    .option("--webhook <url>", "a webhook URL (signed with your secret)")
    .option("--watch <id>", "about this watch (yours, or one you follow); a redacted secret stands for its stored one")
    .option("--name <name>", "the watch's name in the message, without --watch")
    .addHelpText("after", `\n[url...]: ${NOTIFY_HELP.replace(" (repeatable)", "")}\n`)
    .action(async (urls: string[], o: Omit<ChannelOptions, "notify"> & { watch?: string; name?: string }) => {
      const channels = notificationsFrom({ email: o.email, webhook: o.webhook, notify: urls }) ?? [];
      if (!channels.length) throw new UsageError("give a channel: a URL, --email or --webhook");
      const results: ({ type: string } & TestSend)[] = [];
      for (const notification of channels)
        results.push({
          type: notification.type,
          ...(await client().notifications.test(notification, { taskId: o.watch, name: o.name })),
        });
      print(results, () =>
        results
          .map((r) => `${r.type}: ${r.status}${r.error_message ? ` (${r.failure}: ${r.error_message})` : ""}\n`)
          .join(""),
      );
      const missed = results.filter((r) => r.status !== "sent");
      if (missed.length) throw new Error(`not sent: ${missed.map((r) => r.type).join(", ")}`);
    });
}
