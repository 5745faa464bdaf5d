/** An incoming webhook's `{text}` in Mattermost's markdown: the event and watch, the finding, the answer, the links. */
import { fitItems, fitText, siteOf } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";

/**
 * The one escaping of text for Mattermost's markdown: markdown characters and `&` backslash-escaped (no link, heading,
 * table, code block or entity), and a word joiner after `@`, `~` and `#`, so `@channel`, `@all`, `@here`, `@someone`, a
 * `~channel` link and a `#hashtag` search link read as text.
 */
export const escapeMattermost = (raw: string) =>
  raw.replace(/[\\*_~`|>[\]()#<!&-]/g, "\\$&").replace(/[@~#]/g, "$&\u2060");

/** Mattermost keeps a post of up to 16,383 characters (runes: never more than JavaScript's characters). */
export const POST_MAX = 16_383;

export function mattermostText(m: ChatMessage) {
  const lines = [
    `#### ${fitText(`${m.label}: ${m.watch}`, 400, escapeMattermost)}`,
    `**${fitText(m.title, 600, escapeMattermost)}**`,
  ];
  if (m.answer) lines.push("", fitText(m.answer, 4_000, escapeMattermost));
  if (m.confidence !== null) lines.push("", `Confidence: ${percent(m.confidence)}`);
  const watch = `[Open the watch](${linkTarget(m.url)})`;
  const head = lines.join("\n");
  if (!m.sources.length) return `${head}\n\n${watch}`;
  const sources = fitItems(
    m.sources.map((s) => {
      const title = fitText(s.title, 200, escapeMattermost);
      return { link: `- [${title}](${linkTarget(s.url)})`, text: `- ${title} (${escapeMattermost(siteOf(s.url))})` };
    }),
    (joined) => head.length + joined.length + watch.length + 20 <= POST_MAX,
    (parts) => parts.join("\n"),
  );
  return `${head}\n\n**Sources**\n${sources}\n\n${watch}`;
}

export const mattermostPayload = (m: ChatMessage, channel?: string) => ({
  text: mattermostText(m),
  ...(channel ? { channel } : {}),
});
