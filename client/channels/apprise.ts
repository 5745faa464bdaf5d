/**
 * Apprise URLs (what changedetection.io and Apprise users already have: `slack://…`, `discord://…`, `tgram://…`,
 * `ntfy://…`, `workflows://…`) and the services' own URLs pasted as they are, turned into a channel config. One parser
 * for the dashboard's channel editor and `watchctl --notify`.
 */
import { CHANNEL_SPECS } from "./list";
import { AppriseError, type ChannelConfig } from "./spec";

export const APPRISE_SCHEMES = CHANNEL_SPECS.flatMap((s) => s.apprise?.schemes ?? []);

/** A channel config from an Apprise URL or a service's own URL (AppriseError with what is wrong, else). */
export function parseApprise(input: string): ChannelConfig {
  const raw = input.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
  if (!scheme)
    throw new AppriseError(
      `'${raw}' is not a URL: use e.g. ${CHANNEL_SPECS.flatMap((s) => s.apprise?.example ?? []).join(", ")}`,
    );
  let url: URL;
  try {
    // The Telegram token's colon is not a port: URL parsing of tgram:// happens in its own spec, on the raw text.
    url = new URL(scheme === "tgram" ? raw.replace(/^tgram:\/\/[^/?#]*/i, "tgram://bot") : raw);
  } catch {
    throw new AppriseError(`'${raw}' is not a valid URL`);
  }
  if (scheme === "http" || scheme === "https") {
    for (const spec of CHANNEL_SPECS) {
      const config = spec.apprise?.native?.(url);
      if (config) return { type: spec.type, ...config };
    }
    throw new AppriseError(
      `'${raw}' is not a URL Watch recognises as Slack, Discord, Teams or ntfy.sh: for another endpoint add a webhook`,
    );
  }
  const spec = CHANNEL_SPECS.find((s) => s.apprise?.schemes.includes(scheme));
  if (!spec)
    throw new AppriseError(
      `'${scheme}://' is not supported: use one of ${APPRISE_SCHEMES.map((s) => `${s}://`).join(", ")}`,
    );
  return { type: spec.type, ...spec.apprise!.parse(url, raw) };
}
