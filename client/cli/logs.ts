/** `watchctl logs <id>`: a watch's checks, newest first. */
import type { Cli } from "./context";
import { EXECUTION_COLUMNS, executionRow, table } from "./format";
import { parsePositive } from "./options";

export function register({ program, client, print }: Cli) {
  program
    .command("logs <id>")
    .description("a watch's checks, newest first")
    .option("--limit <n>", "how many", (v) => parsePositive(v), 20)
    .action(async (id: string, o: { limit: number }) => {
      const list = await client().watches.executions(id, { limit: o.limit });
      print(list, () => table(list.map(executionRow), EXECUTION_COLUMNS));
    });
}
