/** `watchctl sends` (the delivery history) and `watchctl sends redeliver <id>`. */
import { Option } from "commander";
import { CHANNEL_TYPES } from "../../channels/list";
import type { NotificationType, SendEvent } from "../index";
import type { Cli } from "./context";
import { table } from "./format";
import { parsePositive } from "./options";

export function register({ program, client, print }: Cli) {
  const sends = program
    .command("sends")
    .description("notification delivery history (and `sends redeliver <id>`)")
    .addOption(new Option("--type <type>", "only this channel").choices(CHANNEL_TYPES))
    .addOption(
      new Option("--event <event>", "only this event").choices([
        "task.condition_met",
        "task.condition_retracted",
        "task.run_failed",
        "task.run_recovered",
        "account.budget_exhausted",
        "task.test",
        "email.verification",
        "follow.confirmation",
        "digest.daily",
      ]),
    )
    .option("--watch <id>", "only this watch")
    .option("--limit <n>", "how many", (v) => parsePositive(v), 50)
    .action(async (o: { type?: NotificationType; event?: SendEvent; watch?: string; limit: number }) => {
      const r = await client().notifications.sends({
        notification_type: o.type,
        event: o.event,
        task_id: o.watch,
        limit: o.limit,
      });
      const rows = r.sends.map((s) => ({ ...s, type: s.notification_type }));
      print(
        r,
        () => table(rows, ["id", "created_at", "event", "type", "recipient", "status"]) + `${r.total} in total\n`,
      );
    });
  sends
    .command("redeliver <id>")
    .description("send a run's webhook again now (same webhook-id)")
    .action(async (id: string) => {
      const s = await client().notifications.redeliver(id);
      print(s, () => `Attempt ${s.attempt}: ${s.status}${s.error_message ? ` (${s.error_message})` : ""}\n`);
      if (s.status !== "sent") throw new Error(`the redelivery ${s.status}: ${s.error_message ?? "no reason given"}`);
    });
}
