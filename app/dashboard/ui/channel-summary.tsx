import { channelOf, type ChannelConfig } from "@/channels";

/**
 * A channel on one line: its kind and where it sends (a secret as reads show it, redacted), cut short on a narrow
 * screen with the whole in its title.
 */
export function ChannelSummary({ channel }: { channel: ChannelConfig }) {
  const spec = channelOf(channel.type);
  const where = spec?.summary(channel) ?? "";
  return (
    <span className="channel-summary" title={where}>
      {spec?.label ?? channel.type} <strong>{where}</strong>
    </span>
  );
}
