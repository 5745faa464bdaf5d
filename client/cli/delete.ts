/** `watchctl delete <id>`: asks first in a terminal; elsewhere only with --yes. */
import { ask, stderr, UsageError, type Cli } from "./context";

export function register({ program, client, print }: Cli) {
  program
    .command("delete <id>")
    .description("delete a watch and its history")
    .option("--yes", "do not ask")
    .action(async (id: string, o: { yes?: boolean }) => {
      if (!o.yes) {
        if (!process.stdin.isTTY) throw new UsageError("refusing to delete without --yes when not run in a terminal");
        if (!/^y(es)?$/i.test(await ask(`Delete watch ${id} and its history? [y/N] `))) {
          stderr("Not deleted.\n");
          return;
        }
      }
      await client().watches.delete(id);
      print({ deleted: id }, () => `Deleted ${id}\n`);
    });
}
