/** Discord webhooks: one embed (title, the finding, confidence and sources as fields), mentions switched off. */
import type { APIEmbed, RESTPostAPIWebhookWithTokenJSONBody } from "discord-api-types/v10";
import { z } from "zod";
import { discord as spec } from "../../../client/channels/discord";
import { text } from "../../../lib/text";
import { chatChannel } from "./chat";
import { checkUrl } from "./http";
import { fitEscaped, percent, type ChatMessage } from "./message";

/**
 * The one escaping of text for Discord's markdown: every markdown character backslash-escaped (no masked link, no
 * heading, no spoiler or code block can be formed; `<@123>` and `<#1>` show as written) and `@` followed by a
 * word joiner, so `@everyone` reads as text too (the payload's empty `allowed_mentions` already stops every ping).
 */
export const escapeDiscord = (raw: string) => raw.replace(/[\\*_~`|>[\]()#<:-]/g, "\\$&").replace(/@/g, "@\u2060");

const COLORS = {
  met: 0x16a34a,
  retracted: 0xd97706,
  failing: 0xdc2626,
  recovered: 0x2563eb,
  test: 0x6b7280,
  account: 0x6b7280,
};

/** Discord's limits: content 2,000; embed title 256, description 4,096, field value 1,024, all text 6,000. */
export function discordPayload(m: ChatMessage): RESTPostAPIWebhookWithTokenJSONBody {
  const fields: NonNullable<APIEmbed["fields"]> = [];
  if (m.confidence !== null) fields.push({ name: "Confidence", value: percent(m.confidence), inline: true });
  if (m.sources.length) {
    const lines = m.sources.map(
      (s) => `[${fitEscaped(s.title, 200, escapeDiscord)}](<${s.url.replace(/[()<>\s]/g, encodeURIComponent)}>)`,
    );
    fields.push({ name: "Sources", value: lines.join("\n").slice(0, 1024) });
  }
  const title = fitEscaped(`${m.label}: ${m.title}`, 256, escapeDiscord);
  const fixed = title.length + fields.reduce((n, f) => n + f.name.length + f.value.length, 0) + m.watch.length + 20;
  const embed: APIEmbed = {
    title,
    description: fitEscaped(m.answer || m.title, Math.min(4096, 6000 - fixed), escapeDiscord),
    url: m.url,
    color: COLORS[m.kind],
    timestamp: m.timestamp,
    fields,
    footer: { text: fitEscaped(m.watch, 200, (s) => s) },
  };
  return {
    content: fitEscaped(`${m.label}: ${m.watch}`, 2000, escapeDiscord),
    embeds: [embed],
    allowed_mentions: { parse: [] },
  };
}

export const DiscordNotification = z
  .object({
    type: z.literal("discord"),
    url: text().meta({ description: "Webhook URL (write-only: reads show it redacted)" }),
  })
  .meta({ id: "DiscordNotification", description: "Discord channel (webhook with an embed; mentions off)" });

export const discord = chatChannel({
  spec,
  schema: DiscordNotification,
  check: (c) => ({ type: "discord", url: checkUrl("discord url", c.url.trim()) }),
  request: (m, c) => ({ url: c.url, body: discordPayload(m) }),
});
