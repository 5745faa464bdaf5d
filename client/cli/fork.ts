/** `watchctl fork <id>`: copy a public watch into your account. */
import type { Cli } from "./context";
import { describeTask } from "./format";

export function register({ program, client, print }: Cli) {
  program
    .command("fork <id>")
    .description("copy a public watch into your account (starts paused)")
    .option("--name <name>")
    .action(async (id: string, o: { name?: string }) => {
      const task = await client().watches.fork(id, { name: o.name });
      print(task, () => `Forked into ${task.id}\n${describeTask(task)}`);
    });
}
