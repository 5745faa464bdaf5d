/**
 * Apprise URLs (what changedetection.io and Apprise users already have: `slack://…`, `discord://…`, `tgram://…`,
 * `ntfy://…`, `workflows://…`) and the services' own URLs pasted as they are, turned into a channel config. One parser
 * for the dashboard's channel editor, watchctl and the SDK, over every listed channel's Apprise forms. Its messages
 * never repeat the URL: it may hold a secret.
 */
import { AppriseError } from "./kit/apprise";
import type { ChannelConfig } from "./kit/define";
import { CHANNELS } from "./list";

export const APPRISE_SCHEMES = CHANNELS.flatMap((c) => c.apprise?.schemes ?? []);
const EXAMPLES = CHANNELS.flatMap((c) => c.apprise?.example ?? []);

/** A channel config from an Apprise URL or a service's own URL (AppriseError with what is wrong, else). */
export function parseApprise(input: string): ChannelConfig {
  const raw = input.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
  if (!scheme) throw new AppriseError(`not a URL: use e.g. ${EXAMPLES.join(", ")}`);
  let url: URL;
  try {
    // The Telegram token's colon is not a port: URL parsing of tgram:// happens in its own parser, on the raw text.
    url = new URL(scheme === "tgram" ? raw.replace(/^tgram:\/\/[^/?#]*/i, "tgram://bot") : raw);
  } catch {
    throw new AppriseError(`not a valid ${scheme}:// URL`);
  }
  if (scheme === "http" || scheme === "https") {
    for (const channel of CHANNELS) {
      const config = channel.apprise?.native?.(url);
      if (config) return { type: channel.type, ...config };
    }
    throw new AppriseError(
      "not a URL Watch recognises as Slack, Discord, Teams or ntfy.sh: for another endpoint add a webhook",
    );
  }
  const channel = CHANNELS.find((c) => c.apprise?.schemes.includes(scheme));
  if (!channel?.apprise)
    throw new AppriseError(
      `'${scheme}://' is not supported: use one of ${APPRISE_SCHEMES.map((s) => `${s}://`).join(", ")}`,
    );
  return { type: channel.type, ...channel.apprise.parse(url, raw) };
}
