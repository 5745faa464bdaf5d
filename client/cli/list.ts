/** `watchctl list`: your watches, all of them or a page. */
import { Option } from "commander";
import type { Task } from "../index";
import type { Cli } from "./context";
import { table, TASK_COLUMNS, taskRow } from "./format";
import { parseCount, parsePositive } from "./options";

export function register({ program, client, print }: Cli) {
  program
    .command("list")
    .description("your watches")
    .addOption(new Option("--state <state>", "only this state").choices(["active", "paused", "completed"]))
    .option("--limit <n>", "at most this many (newest first; default: all)", (v) => parsePositive(v))
    .option("--offset <n>", "skip this many first", (v) => parseCount(v))
    .action(async (o: { state?: Task["state"]; limit?: number; offset?: number }) => {
      if (o.limit === undefined && o.offset === undefined) {
        const tasks = await client().watches.list({ state: o.state });
        print(tasks, () => table(tasks.map(taskRow), TASK_COLUMNS));
        return;
      }
      const { items, total } = await client().watches.page({ state: o.state, limit: o.limit ?? 50, offset: o.offset });
      const from = (o.offset ?? 0) + 1;
      print(items, () =>
        items.length
          ? `${table(items.map(taskRow), TASK_COLUMNS)}${from}–${from + items.length - 1} of ${total}\n`
          : `none (${total} in all)\n`,
      );
    });
}
