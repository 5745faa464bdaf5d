/** `watchctl list`: your watches, all of them or a page, in an order, narrowed by words or state. */
import { Option } from "commander";
import type { ListOptions, ListSort, ListState } from "../index";
import type { Cli } from "./context";
import { table, TASK_COLUMNS, taskRow } from "./format";
import { parseCount, parsePositive } from "./options";

/** Every value of `T`, checked against the API's own list by the compiler (a value added there fails to build here). */
const every =
  <T extends string>() =>
  <const A extends readonly T[]>(values: A & ([T] extends [A[number]] ? unknown : never)) =>
    values;
const SORTS = every<ListSort>()(["created", "attention", "updated", "name"]);
const STATES = every<ListState>()(["active", "paused", "completed", "met", "watching", "held", "failing"]);

export function register({ program, client, print }: Cli) {
  program
    .command("list")
    .description("your watches")
    .addOption(
      new Option(
        "--sort <order>",
        "created (newest first, the default), attention (the dashboard's), updated, name",
      ).choices(SORTS),
    )
    .addOption(
      new Option("--state <state>", "only this state, or only what found this (met, held, failing, watching)").choices(
        STATES,
      ),
    )
    .option("-q, --query <words>", "only watches whose name, query or condition has all these words")
    .option("--limit <n>", "at most this many (default: all)", (v) => parsePositive(v))
    .option("--offset <n>", "skip this many first", (v) => parseCount(v))
    .action(async (o: { sort?: ListSort; state?: ListState; query?: string; limit?: number; offset?: number }) => {
      const filter: ListOptions = { sort: o.sort, state: o.state, q: o.query };
      if (o.limit === undefined && o.offset === undefined) {
        const tasks = await client().watches.list(filter);
        print(tasks, () => table(tasks.map(taskRow), TASK_COLUMNS));
        return;
      }
      const { items, total } = await client().watches.page({ ...filter, limit: o.limit ?? 50, offset: o.offset });
      const from = (o.offset ?? 0) + 1;
      print(items, () =>
        items.length
          ? `${table(items.map(taskRow), TASK_COLUMNS)}${from}–${from + items.length - 1} of ${total}\n`
          : `none (${total} in all)\n`,
      );
    });
}
