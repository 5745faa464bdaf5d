/** One embed: the finding's title linking to the watch, the answer, confidence and sources as fields; mentions off. */
import type { APIEmbed, RESTPostAPIWebhookWithTokenJSONBody } from "discord-api-types/v10";
import { fitItems, fitText, siteOf, within, type Item } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";
import { DISCORD, embedText } from "./limits";

/**
 * The one escaping of text for Discord's markdown: every markdown character backslash-escaped (no masked link, no
 * heading, no spoiler or code block can be formed; `<@123>` and `<#1>` show as written) and `@` followed by a
 * word joiner, so `@everyone` reads as text too (the payload's empty `allowed_mentions` already stops every ping).
 */
export const escapeDiscord = (raw: string) => raw.replace(/[\\*_~`|>[\]()#<:&-]/g, "\\$&").replace(/@/g, "@\u2060");

/** Text Discord shows without markdown (the footer): only the `@` is made inert. */
const plainDiscord = (raw: string) => raw.replace(/@/g, "@\u2060");

const COLORS = {
  met: 0x16a34a,
  retracted: 0xd97706,
  failing: 0xdc2626,
  recovered: 0x2563eb,
  test: 0x6b7280,
  account: 0x6b7280,
};

/** A source as a masked link whose destination sits in <…> (no preview, and it cannot close early), or its title and site. */
function source(url: string, title: string): Item {
  const label = fitText(title, 200, escapeDiscord);
  const site = siteOf(url);
  return {
    link: `[${label}](<${linkTarget(url)}>)`,
    text: `${label}${site && site !== title ? ` (${escapeDiscord(site)})` : ""}`,
  };
}

const max = (name: string) => DISCORD.max[name]!.max;

/**
 * Within Discord's limits by construction: the title within 256 characters, the sources field within 1,024 (whole
 * links, then sites), and the answer in what is left of 4,096 and of the 6,000 all of an embed's text may take.
 */
export function discordPayload(m: ChatMessage): RESTPostAPIWebhookWithTokenJSONBody {
  const fields: NonNullable<APIEmbed["fields"]> = [];
  if (m.confidence !== null) fields.push({ name: "Confidence", value: percent(m.confidence), inline: true });
  const sources = fitItems(
    m.sources.map((s) => source(s.url, s.title)),
    within(max("field value")),
    (lines) => lines.join("\n"),
  );
  if (sources) fields.push({ name: "Sources", value: sources });
  const embed: APIEmbed = {
    title: fitText(`${m.label}: ${m.title}`, max("embed title"), escapeDiscord),
    url: m.url,
    color: COLORS[m.kind],
    timestamp: m.timestamp,
    fields,
    footer: { text: fitText(m.watch, 200, plainDiscord) || m.label },
  };
  const room = max("embed text") - embedText({ ...embed, description: "" }).length;
  const description = fitText(m.answer || m.title, Math.min(max("embed description"), room), escapeDiscord);
  return {
    content: fitText(`${m.label}: ${m.watch}`, 300, escapeDiscord),
    embeds: [{ ...embed, ...(description ? { description } : {}) }],
    allowed_mentions: { parse: [] },
  };
}
