/** `watchctl pause|resume|complete <id>`. */
import type { Cli } from "./context";

export function register({ program, client, print }: Cli) {
  for (const [name, state, verb] of [
    ["pause", "paused", "Paused"],
    ["resume", "active", "Resumed"],
    ["complete", "completed", "Completed"],
  ] as const) {
    program
      .command(`${name} <id>`)
      .description(`${name} a watch`)
      .action(async (id: string) => {
        const task = await client().watches.update(id, { state });
        print(task, () => `${verb} ${task.name} (${task.id})\n`);
      });
  }
}
