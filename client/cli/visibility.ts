/** `watchctl publish|unpublish <id>`. */
import type { Cli } from "./context";

export function register({ program, client, print }: Cli) {
  for (const [name, isPublic] of [
    ["publish", true],
    ["unpublish", false],
  ] as const) {
    program
      .command(`${name} <id>`)
      .description(isPublic ? "make a watch public (needs a username)" : "make a watch private")
      .action(async (id: string) => {
        const c = client();
        const r = await c.watches.setVisibility(id, isPublic);
        print(r, () => (r.is_public ? `Public: ${c.config.baseUrl}/w/${id}\n` : `Private: ${id}\n`));
      });
  }
}
