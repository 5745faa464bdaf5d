/** `watchctl login` (save a key) and `watchctl whoami`. */
import { createClient } from "../index";
import { ask, configPath, save, UsageError, type Cli } from "./context";

export function register({ program, globals, client, print }: Cli) {
  program
    .command("login")
    .description("save an API key (and URL) in your config directory, readable only by you")
    .option("--key <key>", "the API key (else prompted)")
    .option("--url <url>", "the API base URL")
    .action(async (opts: { key?: string; url?: string }) => {
      let key = opts.key ?? globals().key;
      if (!key) {
        if (!process.stdin.isTTY)
          throw new UsageError("no key given: pass --key <key> (or run in a terminal to be prompted)");
        key = await ask("API key (Settings → API key in the dashboard): ");
      }
      const url = opts.url ?? globals().url ?? process.env.SERVICE_URL;
      const me = await createClient({ apiKey: key, baseUrl: url, noauth: false }).me();
      save({ url, apiKey: key });
      print({ user: me, config: configPath() }, () => `Logged in as ${me.email}. Key saved in ${configPath()}.\n`);
    });

  program
    .command("whoami")
    .description("the account you are calling as")
    .action(async () => {
      const me = await client().me();
      print(me, () => `${me.email}${me.username ? ` (@${me.username})` : ""}  ${me.id}\n`);
    });
}
