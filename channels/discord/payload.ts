/** One embed: the finding's title linking to the watch, the answer, confidence and sources as fields; mentions off. */
import type { APIEmbed, RESTPostAPIWebhookWithTokenJSONBody } from "discord-api-types/v10";
import { fitEscaped, linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";

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
    // A masked link whose destination sits in <…> (no preview): the destination cannot close either early.
    const lines = m.sources.map((s) => `[${fitEscaped(s.title, 200, escapeDiscord)}](<${linkTarget(s.url)}>)`);
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
