/** Discord webhooks: one embed, mentions switched off. */
import { text } from "../../lib/text";
import { defineChannel, field } from "../kit/define";
import { readAnswer } from "../kit/delivery";
import { checkUrl } from "../kit/urls";
import { apprise } from "./apprise";
import { discordPayload } from "./payload";

export const discord = defineChannel({
  type: "discord",
  label: "Discord",
  help: "In Discord: Server Settings → Integrations → Webhooks → New Webhook, pick the channel, Copy Webhook URL (https://discord.com/api/webhooks/…). The URL is a secret: it is never shown again in full.",
  api: { id: "DiscordNotification", description: "Discord channel (webhook with an embed; mentions off)" },
  fields: {
    url: field(text(), {
      label: "Webhook URL",
      kind: "url",
      placeholder: "https://discord.com/api/webhooks/123456789/XXXXXXXX",
      secret: "write-only",
      description: "Webhook URL (write-only: reads show it redacted)",
    }),
  },
  example: { url: "https://discord.com/api/webhooks/123456789/XXXXXXXXXXXXXXXX" },
  check: (c, context) => ({ type: "discord", url: checkUrl("discord url", c.url.trim(), context) }),
  summary: (c) => String(c.url ?? ""),
  apprise,
  delivery: {
    request: (m, c) => ({ url: c.url, body: discordPayload(m) }),
    // A rate-limited webhook says how long to wait in its JSON body too.
    read: (answer) => readAnswer(answer, ["retry_after"]),
  },
});
