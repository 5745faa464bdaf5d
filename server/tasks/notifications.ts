/**
 * Validation of notification channels, a watch's and a signed-in follower's alike: 400
 * `Invalid notification: …` on any problem, each config checked by its channel's schema and domain checks. A secret
 * sent back as reads show it (redacted) keeps the value stored for that channel.
 */
import { REDACTED } from "../../client/channels/secrets";
import { DomainError } from "../errors";
import { CHANNEL_TYPES, channelOf, type NotificationConfig as Config } from "../notify/channels";
import { invalid } from "../notify/channels/http";
import { mapSecrets } from "../../client/channels/secrets";
import { withKeptSecrets } from "../notify/channels/secrets";

export const DUPLICATE_NOTIFICATIONS =
  "Multiple notifications of the same type are not supported. Please provide at most one email and one webhook notification.";

export { isPrivateHost } from "../notify/channels/http";

const LOOKS_REDACTED = /^(…|https?:\/\/[^/]+\/…)/;

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
      channel.spec,
      item as Config,
      stored.find((s) => s.type === channel.type),
    );
    mapSecrets(channel.spec, sent, (value, what, kind) => {
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
    out.push(channel.check(parsed.data) as Config);
  }
  return out;
}
