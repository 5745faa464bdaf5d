/** An incoming webhook's `{text}` in Mattermost's markdown: the event and watch, the finding, the answer, the links. */
import { fitEscaped, linkTarget, percent, siteOf } from "../kit/format";
import type { ChatMessage } from "../kit/message";

/**
 * The one escaping of text for Mattermost's markdown: markdown characters backslash-escaped (no link, heading, table or
 * code block), and a word joiner after `@`, `~` and `#`, so `@channel`, `@all`, `@here`, `@someone`, a `~channel`
 * link and a `#hashtag` search link read as text.
 */
export const escapeMattermost = (raw: string) =>
  raw.replace(/[\\*_~`|>[\]()#<!-]/g, "\\$&").replace(/[@~#]/g, "$&\u2060");

/** Mattermost keeps a post of up to 16,383 characters: the parts are capped so the whole stays below it. */
export const POST_MAX = 16_383;
const LINK_MAX = 2_000;

export function mattermostText(m: ChatMessage) {
  const lines = [
    `#### ${fitEscaped(`${m.label}: ${m.watch}`, 400, escapeMattermost)}`,
    `**${fitEscaped(m.title, 600, escapeMattermost)}**`,
  ];
  if (m.answer) lines.push("", fitEscaped(m.answer, 4_000, escapeMattermost));
  if (m.confidence !== null) lines.push("", `Confidence: ${percent(m.confidence)}`);
  if (m.sources.length) {
    lines.push("", "**Sources**");
    for (const s of m.sources) {
      const title = fitEscaped(s.title, 200, escapeMattermost);
      const target = linkTarget(s.url);
      lines.push(
        target.length <= LINK_MAX ? `- [${title}](${target})` : `- ${title} (${escapeMattermost(siteOf(s.url))})`,
      );
    }
  }
  lines.push("", `[Open the watch](${linkTarget(m.url)})`);
  return lines.join("\n");
}

export const mattermostPayload = (m: ChatMessage, channel?: string) => ({
  text: mattermostText(m),
  ...(channel ? { channel } : {}),
});
