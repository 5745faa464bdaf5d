/**
 * A notification for a self-hosted Apprise API to pass on to every service it is configured for: a title, a markdown
 * body Apprise turns into each service's own format, and the kind of notice as Apprise's type.
 */
import { fitEscaped, linkTarget, percent, siteOf } from "../kit/format";
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
const LINK_MAX = 1_000;

export function apprisePayload(m: ChatMessage, tags?: string) {
  const sources = m.sources.map((s) => {
    const title = fitEscaped(s.title, 200, escapeApprise);
    const target = linkTarget(s.url);
    return target.length <= LINK_MAX ? `- [${title}](${target})` : `- ${title} (${escapeApprise(siteOf(s.url))})`;
  });
  const tail = [
    ...(m.confidence !== null ? ["", `Confidence: ${percent(m.confidence)}`] : []),
    ...(sources.length ? ["", "**Sources**", ...sources] : []),
    "",
    `[Open the watch](${linkTarget(m.url)})`,
  ].join("\n");
  const head = `**${fitEscaped(m.title, 600, escapeApprise)}**`;
  const answer = m.answer
    ? `\n\n${fitEscaped(m.answer, LIMITS.body - head.length - tail.length - 3, escapeApprise)}`
    : "";
  return {
    title: fitEscaped(`${m.label}: ${m.watch}`, LIMITS.title, escapeApprise),
    body: `${head}${answer}\n${tail}`,
    format: "markdown",
    type: TYPES[m.kind],
    ...(tags ? { tag: tags } : {}),
  };
}
