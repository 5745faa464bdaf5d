/** Mattermost incoming webhooks: one markdown post, to the webhook's channel or the one named. */
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";
import { checkUrl } from "../kit/urls";
import { apprise } from "./apprise";
import { limits } from "./limits";
import { mattermostPayload } from "./payload";

export const mattermost = defineChannel({
  type: "mattermost",
  label: "Mattermost",
  help: "In Mattermost: Product menu → Integrations → Incoming Webhooks → Add Incoming Webhook, pick the channel and copy the URL (https://your-server/hooks/…). The URL is a secret: it is never shown again in full.",
  api: { id: "MattermostNotification", description: "Mattermost channel (incoming webhook, markdown text)" },
  fields: {
    url: field(text(), {
      label: "Incoming webhook URL",
      kind: "url",
      placeholder: "https://chat.example.com/hooks/xxxxxxxxxxxxxxxxxxxxxxxxxx",
      secret: "write-only",
      description: "Incoming webhook URL (write-only: reads show it redacted)",
    }),
    channel: field(text().optional(), {
      label: "Channel",
      kind: "text",
      placeholder: "town-square (optional: the webhook's own channel)",
      description:
        "Another channel to post in, by its name (not its display name), when the webhook is not locked to its own",
    }),
  },
  example: { url: "https://chat.example.com/hooks/abcdefghijklmnopqrstuvwxyz" },
  check(c, context) {
    const url = checkUrl("mattermost url", c.url.trim(), context);
    if (!/\/hooks\/[^/?#]+$/.test(new URL(url).pathname))
      throw new ConfigError("mattermost url must be an incoming webhook's URL (…/hooks/…)");
    const channel = c.channel?.trim().replace(/^#/, "");
    if (channel !== undefined && channel !== "" && !/^@?[a-z0-9][a-z0-9._-]{0,63}$/.test(channel))
      throw new ConfigError("mattermost channel must be a channel's name (lower-case letters, digits, - and _)");
    return { type: "mattermost", url, ...(channel ? { channel } : {}) };
  },
  summary: (c) => `${String(c.url ?? "")}${c.channel ? ` (${String(c.channel)})` : ""}`,
  apprise,
  limits,
  delivery: { request: (m, c) => ({ url: c.url, body: mattermostPayload(m, c.channel) }) },
});
