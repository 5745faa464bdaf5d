/** `watchctl findings <id>`: what a watch found, one entry per finding. */
import type { Cli } from "./context";
import { findingText } from "./format";
import { parsePositive } from "./options";

export function register({ program, client, print }: Cli) {
  program
    .command("findings <id>")
    .description("what a watch found, newest first: one entry per finding, with how many checks confirmed it")
    .option("--limit <n>", "how many (at most 100)", (v) => parsePositive(v), 20)
    .action(async (id: string, o: { limit: number }) => {
      const list = await client().watches.findings(id, { limit: Math.min(o.limit, 100) });
      print(list, () => (list.length ? list.map(findingText).join("\n") : "(no findings yet)\n"));
    });
}
