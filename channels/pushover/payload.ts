/**
 * A Pushover message with `html=1`: titled with the event and the watch, the finding in bold, the answer, the
 * confidence and the sources as links; tapping it opens the watch (its supplementary URL).
 */
import { cutOnWord, fitItems, fitText, siteOf } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";

/** The one escaping of text for Pushover's HTML: `&`, `<`, `>` and `"` as entities (no tag, no link of its own). */
export const escapePushover = (raw: string) =>
  raw.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Pushover's limits: message 1,024 characters, title 250, supplementary URL 512, its title 100. */
export const LIMITS = { message: 1024, title: 250, url: 512, url_title: 100 } as const;
/** What the sources may take of the message, at most: the answer keeps the rest. */
const SOURCES_ROOM = 300;

/**
 * The message within 1,024 characters (counted as JavaScript does, in UTF-16 units: never more than Pushover's
 * characters): the finding and its answer first, leaving the sources up to 300 characters, each a link while that
 * fits, else its site.
 */
export function pushoverMessage(m: ChatMessage) {
  const head = `<b>${fitText(m.title, 200, escapePushover)}</b>`;
  const confidence = m.confidence !== null ? `\nConfidence: ${percent(m.confidence)}` : "";
  const label = m.sources.length ? "\nSources: " : "";
  const items = m.sources.map((s) => {
    const site = escapePushover(siteOf(s.url));
    return {
      link: `<a href="${linkTarget(s.url).replace(/&/g, "&amp;")}">${fitText(s.title, 60, escapePushover)}</a>`,
      text: site,
    };
  });
  const reserve = Math.min(SOURCES_ROOM, label.length + items.reduce((n, i) => n + i.text.length + 2, 0));
  const room = LIMITS.message - head.length - confidence.length - reserve - 1;
  const answer = m.answer ? `\n${fitText(m.answer, Math.max(0, room), escapePushover)}` : "";
  const fixed = head.length + answer.length + confidence.length + label.length;
  const sources = fitItems(
    items,
    (joined) => fixed + joined.length <= LIMITS.message,
    (parts) => parts.join(", "),
  );
  return `${head}${answer}${confidence}${sources ? `${label}${sources}` : ""}`;
}

export function pushoverPayload(m: ChatMessage, token: string, user: string) {
  return {
    token,
    user,
    title: cutOnWord(`${m.label}: ${m.watch}`, LIMITS.title),
    message: pushoverMessage(m),
    html: 1,
    ...(m.url.length <= LIMITS.url ? { url: m.url, url_title: "Open the watch" } : {}),
    timestamp: Math.floor(Date.parse(m.timestamp) / 1000),
  };
}
