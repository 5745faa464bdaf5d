/** A Gotify message: a plain title, a markdown message, and a click-through to the watch. */
import { fitItems, fitText, siteOf } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";

/**
 * The one escaping of text for Gotify's markdown: markdown characters and `&` backslash-escaped, so no link or entity can
 * be formed.
 */
export const escapeGotify = (raw: string) => raw.replace(/[\\*_~`|>[\]()#<!&-]/g, "\\$&");

/** Gotify's priorities as Apprise names them (0 to 10; Android sounds from 4, pops up from 8). */
export const PRIORITIES = { low: 0, moderate: 3, normal: 5, high: 8, emergency: 10 } as const;
export type Priority = keyof typeof PRIORITIES;

/**
 * Gotify sets no length limit; Watch keeps a message within 4,000 characters and a title within 250, what a phone's
 * notification and Gotify's own clients show well.
 */
export const LIMITS = { message: 4_000, title: 250 } as const;

export function gotifyPayload(m: ChatMessage, priority: Priority) {
  const confidence = m.confidence !== null ? `\n\nConfidence: ${percent(m.confidence)}` : "";
  const items = m.sources.map((s) => {
    const title = fitText(s.title, 200, escapeGotify);
    return { link: `- [${title}](${linkTarget(s.url)})`, text: `- ${title} (${escapeGotify(siteOf(s.url))})` };
  });
  // The finding and the answer first, leaving the sources up to 1,500 characters.
  const reserve = Math.min(1_500, items.reduce((n, i) => n + i.text.length + 1, 0) + 15);
  const title = `**${fitText(m.title, 600, escapeGotify)}**`;
  const room = LIMITS.message - title.length - confidence.length - reserve - 2;
  const body = m.answer ? `${title}\n\n${fitText(m.answer, room, escapeGotify)}` : title;
  const fixed = body.length + confidence.length + "\n\n**Sources**\n".length;
  const sources = fitItems(
    items,
    (joined) => fixed + joined.length <= LIMITS.message,
    (parts) => parts.join("\n"),
  );
  return {
    title: fitText(`${m.label}: ${m.watch}`, LIMITS.title),
    message: `${body}${confidence}${sources ? `\n\n**Sources**\n${sources}` : ""}`,
    priority: PRIORITIES[priority],
    extras: {
      "client::display": { contentType: "text/markdown" },
      "client::notification": { click: { url: m.url } },
    },
  };
}
