/**
 * A Pushover message with `html=1`: titled with the event and the watch, the finding in bold, the answer, the
 * confidence and the sources as links; tapping it opens the watch (its supplementary URL).
 */
import { cutOnWord, fitEscaped, linkTarget, percent, siteOf } from "../kit/format";
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
 * characters): the finding and its answer first, then each source as a link while one fits, else by its site.
 */
export function pushoverMessage(m: ChatMessage) {
  const head = `<b>${fitEscaped(m.title, 200, escapePushover)}</b>`;
  const confidence = m.confidence !== null ? `\nConfidence: ${percent(m.confidence)}` : "";
  const label = m.sources.length ? "\nSources: " : "";
  const sites = m.sources.map((s) => escapePushover(siteOf(s.url)));
  const reserve = Math.min(SOURCES_ROOM, label.length + sites.reduce((n, site) => n + site.length + 2, 0));
  const room = LIMITS.message - head.length - confidence.length - reserve - 1;
  const answer = m.answer ? `\n${fitEscaped(m.answer, Math.max(0, room), escapePushover)}` : "";
  let rest = LIMITS.message - head.length - answer.length - confidence.length - label.length;
  const items: string[] = [];
  m.sources.forEach((s, i) => {
    const sep = items.length ? ", " : "";
    const title = fitEscaped(s.title, 60, escapePushover);
    const link = `<a href="${linkTarget(s.url).replace(/&/g, "&amp;")}">${title}</a>`;
    const item = [link, sites[i]!].find((x) => sep.length + x.length <= rest);
    if (!item) return;
    items.push(`${sep}${item}`);
    rest -= sep.length + item.length;
  });
  return `${head}${answer}${confidence}${items.length ? `${label}${items.join("")}` : ""}`;
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
