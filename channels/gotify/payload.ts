/** A Gotify message: a plain title, a markdown message, and a click-through to the watch. */
import { fitEscaped, linkTarget, percent, siteOf } from "../kit/format";
import type { ChatMessage } from "../kit/message";

/** The one escaping of text for Gotify's markdown: markdown characters backslash-escaped, so no link can be formed. */
export const escapeGotify = (raw: string) => raw.replace(/[\\*_~`|>[\]()#<!-]/g, "\\$&");

/** Gotify's priorities as Apprise names them (0 to 10; Android sounds from 4, pops up from 8). */
export const PRIORITIES = { low: 0, moderate: 3, normal: 5, high: 8, emergency: 10 } as const;
export type Priority = keyof typeof PRIORITIES;

/**
 * Gotify sets no length limit; Watch keeps a message within 4,000 characters and a title within 250, what a phone's
 * notification and Gotify's own clients show well.
 */
export const LIMITS = { message: 4_000, title: 250 } as const;
const LINK_MAX = 600;

export function gotifyPayload(m: ChatMessage, priority: Priority) {
  const sources = m.sources.map((s) => {
    const title = fitEscaped(s.title, 200, escapeGotify);
    const target = linkTarget(s.url);
    return target.length <= LINK_MAX ? `- [${title}](${target})` : `- ${title} (${escapeGotify(siteOf(s.url))})`;
  });
  const tail = [
    ...(m.confidence !== null ? ["", `Confidence: ${percent(m.confidence)}`] : []),
    ...(sources.length ? ["", "**Sources**", ...sources] : []),
  ].join("\n");
  const body = fitEscaped(`${m.title}\n\n${m.answer}`.trim(), LIMITS.message - tail.length, escapeGotify);
  return {
    title: fitEscaped(`${m.label}: ${m.watch}`, LIMITS.title, (s) => s),
    message: `${body}${tail}`,
    priority: PRIORITIES[priority],
    extras: {
      "client::display": { contentType: "text/markdown" },
      "client::notification": { click: { url: m.url } },
    },
  };
}
