/**
 * A notification for a self-hosted Apprise API to pass on to every service it is configured for: a title, a markdown
 * body Apprise turns into each service's own format, and the kind of notice as Apprise's type.
 */
import { fitItems, fitText, siteOf } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
import type { ChatMessage, MessageKind } from "../kit/message";

/**
 * The one escaping of text for the markdown Apprise reads: markdown characters backslash-escaped (no link), `<`, `>`
 * and `&` as entities (no HTML and no `<!channel>` or `<users/all>` where Apprise passes markdown on as it is), and a
 * word joiner after `@` (no `@everyone` or `@room` on the services behind it).
 */
export const escapeApprise = (raw: string) =>
  raw
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\*_~`|[\]()#!-]/g, "\\$&")
    .replace(/@/g, "@\u2060");

const TYPES: Record<MessageKind, "info" | "success" | "warning"> = {
  met: "success",
  retracted: "warning",
  failing: "warning",
  recovered: "success",
  test: "info",
  account: "info",
};

/**
 * Apprise passes the message on to services with limits of their own (and splits or cuts it there): Watch keeps the
 * title within 250 characters and the body within 4,000, what most chat and push services take whole.
 */
export const LIMITS = { title: 250, body: 4_000 } as const;

export function apprisePayload(m: ChatMessage, tags?: string) {
  const confidence = m.confidence !== null ? `\n\nConfidence: ${percent(m.confidence)}` : "";
  const watch = `\n\n[Open the watch](${linkTarget(m.url)})`;
  const items = m.sources.map((s) => {
    const title = fitText(s.title, 200, escapeApprise);
    return { link: `- [${title}](${linkTarget(s.url)})`, text: `- ${title} (${escapeApprise(siteOf(s.url))})` };
  });
  // The finding and the answer first, leaving the sources up to 1,500 characters.
  const reserve = Math.min(1_500, items.reduce((n, i) => n + i.text.length + 1, 0) + 15);
  const head = `**${fitText(m.title, 600, escapeApprise)}**`;
  const answer = m.answer
    ? `\n\n${fitText(m.answer, LIMITS.body - head.length - confidence.length - watch.length - reserve - 2, escapeApprise)}`
    : "";
  const fixed = head.length + answer.length + confidence.length + watch.length + "\n\n**Sources**\n".length;
  const sources = fitItems(
    items,
    (joined) => fixed + joined.length <= LIMITS.body,
    (parts) => parts.join("\n"),
  );
  return {
    title: fitText(`${m.label}: ${m.watch}`, LIMITS.title, escapeApprise),
    body: `${head}${answer}${confidence}${sources ? `\n\n**Sources**\n${sources}` : ""}${watch}`,
    format: "markdown",
    type: TYPES[m.kind],
    ...(tags ? { tag: tags } : {}),
  };
}
