/**
 * Validation of notification channels, a watch's and a signed-in follower's alike: 400
 * `Invalid notification: …` on any problem, each config checked by its channel's schema and checks (channels/). A
 * secret sent back as reads show it (redacted) keeps the value stored for that channel.
 */
import { CHANNEL_TYPES, channelOf, type NotificationConfig as Config } from "../../channels/list";
import { ConfigError } from "../../channels/kit/define";
import { LOOKS_REDACTED, mapSecrets, REDACTED, withKeptSecrets } from "../../channels/kit/secrets";
import { DomainError } from "../errors";
import { env } from "../env";

export const DUPLICATE_NOTIFICATIONS =
  "Multiple notifications of the same type are not supported. Please provide at most one email and one webhook notification.";

export const invalid = (why: string) => new DomainError("invalid", `Invalid notification: ${why}`);

/** A watch channel's row as a config: its type and its stored fields (a follower's are stored as configs already). */
export const storedConfig = (row: { type: string; config: unknown }) => ({
  ...((row.config as Record<string, unknown> | null) ?? {}),
  type: row.type,
});

/** Parses and checks the configs; returns them normalised. `stored`: the channels they replace (for kept secrets). */
export function parseNotifications(items: unknown[], stored: readonly Config[] = []): Config[] {
  const seen = new Set<string>();
  const out: Config[] = [];
  for (const item of items) {
    const type = (item as { type?: unknown })?.type;
    const channel = typeof type === "string" ? channelOf(type) : undefined;
    if (!channel)
      throw invalid(
        `type must be one of ${CHANNEL_TYPES.map((t) => `'${t}'`).join(", ")}, got ${JSON.stringify(type ?? null)}`,
      );
    if (seen.has(channel.type)) throw new DomainError("invalid", DUPLICATE_NOTIFICATIONS);
    seen.add(channel.type);
    const sent = withKeptSecrets(
      channel,
      item as Config,
      stored.find((s) => s.type === channel.type),
    );
    mapSecrets(channel, sent, (value, what, kind) => {
      if (kind === "write-only" && (value === REDACTED || LOOKS_REDACTED.test(value)))
        throw invalid(`${what} is redacted and there is no stored value to keep: send the full value`);
      return value;
    });
    const parsed = channel.schema.safeParse(sent);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.join(".") || channel.type;
      throw invalid(`${channel.type} ${field}: ${issue.message}`);
    }
    try {
      out.push(channel.check(parsed.data, { allowPrivate: env.WEBHOOK_ALLOW_PRIVATE }) as Config);
    } catch (e) {
      throw e instanceof ConfigError ? invalid(e.message) : e;
    }
  }
  return out;
}
