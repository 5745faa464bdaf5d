/** `watchctl history <id>`: how a watch's definition changed. */
import type { Cli } from "./context";

export function register({ program, client, print }: Cli) {
  program
    .command("history <id>")
    .description("how a watch's definition changed, newest first")
    .action(async (id: string) => {
      const list = await client().watches.history(id, { limit: 100 });
      const describe = (changes: Record<string, { from?: unknown; to?: unknown }>) =>
        Object.entries(changes)
          .map(([field, c]) => `  ${field}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}\n`)
          .join("");
      print(list, () =>
        list.length
          ? list.map((h) => `${h.at}\n${describe(h.changes)}`).join("")
          : "(no changes since it was created)\n",
      );
    });
}
