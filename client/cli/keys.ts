/** `watchctl keys create|list|revoke`: your API keys. */
import type { Cli } from "./context";
import { table } from "./format";

export function register({ program, client, print }: Cli) {
  const keys = program.command("keys").description("your API key");
  keys
    .command("create <name>")
    .description("create a key (shown once)")
    .action(async (name: string) => {
      const r = await client().apiKeys.create(name);
      print(r, () => `${r.key}\nSave it now: it is shown only once.\n`);
    });
  keys
    .command("list")
    .description("your keys")
    .action(async () => {
      const list = await client().apiKeys.list();
      print(list, () =>
        table(
          list.map((k) => ({ ...k, active: k.is_active ? "yes" : "revoked" })),
          ["id", "name", "key_prefix", "active", "created_at", "last_used_at"],
        ),
      );
    });
  keys
    .command("revoke <id>")
    .description("revoke a key at once")
    .action(async (id: string) => {
      const r = await client().apiKeys.revoke(id);
      print(r, () => `Revoked ${id}\n`);
    });
}
