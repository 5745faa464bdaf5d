/**
 * Channel secrets, one rule for every surface: reads show a write-only secret redacted (`"…" + last 4`; a URL keeps its
 * origin: `https://hooks.slack.com/…WXYZ`), exports write every secret as REDACTED, and a config sent back with either
 * form keeps the stored value.
 */
import type { ChannelConfig, Field } from "./define";

export const REDACTED = "<redacted>";

type Secretive = { type: string; fields: readonly Field[] };

/** How a read shows a write-only secret. */
export function redactSecret(value: string): string {
  const tail = value.slice(-4);
  if (/^https?:\/\//i.test(value)) {
    try {
      return `${new URL(value).origin}/…${tail}`;
    } catch {
      // not a URL after all: the plain form below
    }
  }
  return `…${tail}`;
}

/** A value that reads as a redacted secret (a read's `…last4`, a URL's `https://host/…last4`). */
export const LOOKS_REDACTED = /^(…|https?:\/\/[^/]+\/…)/;

/** True when `sent` stands for `stored` rather than replacing it (the read's redacted form, or an export's REDACTED). */
export const keepsSecret = (sent: unknown, stored: string) =>
  sent === REDACTED || (typeof sent === "string" && sent === redactSecret(stored));

/**
 * Applies `f` to every secret value of a config: write-only fields and, for `export` fields that are maps (a
 * webhook's headers), each value. `what` names the value for messages (`slack url`, `webhook header "X-Key"`).
 */
export function mapSecrets<C extends ChannelConfig>(
  channel: Secretive | undefined,
  config: C,
  f: (value: string, what: string, field: "write-only" | "export") => string,
): C {
  if (!channel) return config;
  const out: Record<string, unknown> = { ...config };
  for (const field of channel.fields) {
    const value = out[field.name];
    if (!field.secret || value === undefined || value === null) continue;
    if (typeof value === "string") out[field.name] = f(value, `${channel.type} ${field.name}`, field.secret);
    else if (typeof value === "object")
      out[field.name] = Object.fromEntries(
        Object.entries(value as Record<string, string>).map(([k, v]) => [
          k,
          f(v, `${channel.type} ${field.name.replace(/s$/, "")} "${k}"`, field.secret!),
        ]),
      );
  }
  return out as C;
}

/** The config as reads show it: write-only secrets redacted, the rest as stored. */
export const redactedView = <C extends { type: string }>(channel: Secretive, config: C): C =>
  mapSecrets(channel, config as unknown as ChannelConfig, (value, _what, kind) =>
    kind === "write-only" ? redactSecret(value) : value,
  ) as unknown as C;

/** `sent` with each secret that stands for the stored one (redacted or "<redacted>") replaced by the stored value. */
export function withKeptSecrets(channel: Secretive, sent: ChannelConfig, stored: ChannelConfig | undefined) {
  const storedValues = new Map<string, string>();
  if (stored) mapSecrets(channel, stored, (value, what) => (storedValues.set(what, value), value));
  return mapSecrets(channel, sent, (value, what) => {
    const kept = storedValues.get(what);
    return kept !== undefined && keepsSecret(value, kept) ? kept : value;
  });
}
