/**
 * Apprise URLs (what changedetection.io and Apprise users already have: `slack://…`, `discord://…`, `tgram://…`,
 * `ntfy://…`, `workflows://…`, `mmost://…`, `gchat://…`, `matrixs://…`, `pover://…`, `gotify://…`, `apprise://…`) and the
 * services' own URLs pasted as they are, turned into a channel config, read as
 * Apprise reads them: each form either becomes the config of exactly what Apprise would send to, or is refused with
 * what Watch does not support. Options that only shape Apprise's own layout (`format=`, `footer=`, …) change nothing
 * in what Watch sends and are reported as ignored. One parser for the dashboard's channel editor, watchctl and the SDK,
 * over every listed channel's Apprise forms. Its messages never repeat the URL: it may hold a secret.
 */
import { AppriseError, ignoredOptions, parseBool, readAppriseUrl } from "./kit/apprise";
import type { Channel, ChannelConfig } from "./kit/define";
import { CHANNELS } from "./list";

export const APPRISE_SCHEMES = CHANNELS.flatMap((c) => c.apprise?.schemes ?? []);
const EXAMPLES = CHANNELS.flatMap((c) => c.apprise?.example ?? []);
/** The services whose own URLs can be pasted as they are. */
const NATIVE = CHANNELS.filter((c) => c.apprise?.native)
  .map((c) => c.label)
  .join(", ");

/** A config read from an Apprise URL, and the options in it that change nothing in what Watch sends. */
export type AppriseReading = { config: ChannelConfig; ignored: string[] };

function read(channel: Channel, typed: string, scheme: string): AppriseReading {
  const url = readAppriseUrl(typed);
  if (!url || !channel.apprise) throw new AppriseError(`not a valid ${scheme}:// URL`);
  if (!parseBool(url.query.verify, true))
    throw new AppriseError("skipping certificate checks (verify=no) is not supported: Watch always verifies them");
  return {
    config: { type: channel.type, ...channel.apprise.parse(url) },
    ignored: ignoredOptions(channel.apprise, url),
  };
}

/** A channel config from an Apprise URL or a service's own URL, with what it ignores (AppriseError with what is wrong). */
export function readApprise(input: string): AppriseReading {
  const raw = input.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
  if (!scheme) throw new AppriseError(`not a URL: use e.g. ${EXAMPLES.join(", ")}`);
  if (scheme === "http" || scheme === "https") {
    for (const channel of CHANNELS as readonly Channel[]) {
      const form = channel.apprise?.native?.(raw);
      if (form) return read(channel, form, form.slice(0, form.indexOf(":")));
    }
    throw new AppriseError(`not a URL Watch recognises as ${NATIVE}: for another endpoint add a webhook`);
  }
  const channel = (CHANNELS as readonly Channel[]).find(
    (c) => c.apprise?.schemes.includes(scheme) || c.apprise?.retired?.includes(scheme),
  );
  if (!channel)
    throw new AppriseError(
      `'${scheme}://' is not supported: use one of ${APPRISE_SCHEMES.map((s) => `${s}://`).join(", ")}`,
    );
  return read(channel, raw, scheme);
}

/** A channel config from an Apprise URL or a service's own URL (AppriseError with what is wrong, else). */
export const parseApprise = (input: string): ChannelConfig => readApprise(input).config;
