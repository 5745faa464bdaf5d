/** `watchctl settings`: time zone, quiet hours and the daily digest, shown or changed. */
import { Option } from "commander";
import { UsageError, type Cli } from "./context";

/** "22:00-07:00" → {start, end}; "off" → null (the server checks the times). */
function parseQuietHours(v: string) {
  if (v.trim().toLowerCase() === "off") return null;
  const match = /^\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s*$/.exec(v);
  if (!match) throw new UsageError(`expected quiet hours like 22:00-07:00, or off; got "${v}"`);
  const pad = (t: string) => t.padStart(5, "0");
  return { start: pad(match[1]!), end: pad(match[2]!) };
}

export function register({ program, client, print }: Cli) {
  program
    .command("settings")
    .description("your time zone, quiet hours and daily digest (shown, or changed by the options given)")
    .option("--timezone <zone>", "IANA time zone, e.g. Europe/Berlin")
    .option("--quiet-hours <HH:MM-HH:MM|off>", "hold email between these local times (webhooks never wait)")
    .addOption(
      new Option("--digest <mode>", "one email a day at 08:00 instead of one per finding").choices(["daily", "off"]),
    )
    .action(async (o: { timezone?: string; quietHours?: string; digest?: "daily" | "off" }) => {
      const c = client();
      const changes = {
        timezone: o.timezone,
        quiet_hours: o.quietHours === undefined ? undefined : parseQuietHours(o.quietHours),
        email_digest: o.digest,
      };
      const settings = Object.values(changes).every((v) => v === undefined)
        ? await c.settings.get()
        : await c.settings.update(changes);
      print(
        settings,
        () =>
          `time zone    ${settings.timezone}\n` +
          `quiet hours  ${settings.quiet_hours ? `${settings.quiet_hours.start} to ${settings.quiet_hours.end}` : "off"}\n` +
          `digest       ${settings.email_digest}\n`,
      );
    });
}
