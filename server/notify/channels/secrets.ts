/**
 * A channel's secrets on the server: reads show write-only ones redacted, and a config written back with the redacted
 * form (or an export's "<redacted>") keeps the value stored for the same channel.
 */
import type { ChannelSpec } from "../../../client/channels/spec";
import { keepsSecret, mapSecrets, redactSecret } from "../../../client/channels/secrets";

type Config = { type: string } & Record<string, unknown>;

/** The config as reads show it: write-only secrets redacted, the rest as stored. */
export const redactedView = <C extends { type: string }>(spec: ChannelSpec, config: C): C =>
  mapSecrets(spec, config as unknown as Config, (value, _what, kind) =>
    kind === "write-only" ? redactSecret(value) : value,
  ) as unknown as C;

/** `sent` with each secret that stands for the stored one (redacted or "<redacted>") replaced by the stored value. */
export function withKeptSecrets(spec: ChannelSpec, sent: Config, stored: Config | undefined): Config {
  const storedValues = new Map<string, string>();
  if (stored) mapSecrets(spec, stored, (value, what) => (storedValues.set(what, value), value));
  return mapSecrets(spec, sent, (value, what) => {
    const kept = storedValues.get(what);
    return kept !== undefined && keepsSecret(value, kept) ? kept : value;
  });
}
