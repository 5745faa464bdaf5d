/** `watchctl show <id>`: one watch, with its latest answer. */
import type { Cli } from "./context";
import { describeTask } from "./format";

export function register({ program, client, print }: Cli) {
  program
    .command("show <id>")
    .description("one watch, with its latest answer")
    .action(async (id: string) => {
      const task = await client().watches.get(id);
      print(task, () => describeTask(task));
    });
}
