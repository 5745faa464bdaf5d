/** `watchctl findings <id>`: what a watch found, one entry per finding; `watchctl send <id> <key>`: send a held one. */
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

  program
    .command("send <id> <key>")
    .description(
      "send a finding the watch's bounds held back, anyway: to the watch's channels and followers, and public like any " +
        "notified finding (the key from `watchctl findings`)",
    )
    .action(async (id: string, key: string) => {
      const finding = await client().watches.sendFinding(id, key);
      print(finding, () => `sent: ${findingText(finding)}`);
    });
}
