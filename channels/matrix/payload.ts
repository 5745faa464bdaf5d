/**
 * An `m.room.message` event: `m.text` with a plain body and an `org.matrix.custom.html` body, and an empty
 * `m.mentions` (intentional mentions: the event mentions no one and not the room, whatever its text says).
 */
import { fitItems, fitText, jsonBytes, siteOf } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";

/**
 * The one escaping of text for Matrix's HTML body: `&`, `<`, `>`, `"` and `'` as entities (no tag, no link, no pill),
 * and a word joiner after `@`, so `@room` or `@someone:server` neither notifies a server that predates intentional
 * mentions nor reads as a user's id.
 */
export const escapeMatrix = (raw: string) =>
  raw
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")
    .replace(/@/g, "@\u2060");

/** The plain body's text: only `@` is special there. */
const plain = (raw: string) => raw.replace(/@/g, "@\u2060");

/** A link destination inside `href="…"`. */
const href = (url: string) => linkTarget(url).replace(/&/g, "&amp;");

/**
 * A whole event may be 65,536 bytes of canonical JSON, its envelope (ids, sender, room, timestamps, hashes and
 * signatures) included: the content keeps 4,096 bytes of that for the envelope.
 */
export const CONTENT_MAX_BYTES = 65_536 - 4_096;

export function matrixContent(m: ChatMessage) {
  const head = fitText(`${m.label}: ${m.watch}`, 400);
  const title = fitText(m.title, 600);
  const answer = m.answer ? fitText(m.answer, 8_000, escapeMatrix) : "";
  const confidence = m.confidence !== null ? `Confidence: ${percent(m.confidence)}` : "";
  const html = (sources: string) =>
    [
      `<p><b>${escapeMatrix(head)}</b><br><b>${escapeMatrix(title)}</b></p>`,
      answer && `<p>${answer.replace(/\n/g, "<br>")}</p>`,
      confidence && `<p>${confidence}</p>`,
      sources && `<p>Sources:</p><ul>${sources}</ul>`,
      `<p><a href="${href(m.url)}">Open the watch</a></p>`,
    ].join("");
  const sourceTitles = m.sources.map((s) => fitText(s.title, 200));
  const body = [
    plain(head),
    plain(title),
    ...(m.answer ? ["", plain(m.answer)] : []),
    ...(confidence ? ["", confidence] : []),
    ...(m.sources.length
      ? ["", "Sources:", ...m.sources.map((s, i) => `- ${plain(sourceTitles[i]!)} (${siteOf(s.url)})`)]
      : []),
    "",
    `Open the watch: ${m.url}`,
  ].join("\n");
  const content = (formatted_body: string) => ({
    msgtype: "m.text",
    body,
    format: "org.matrix.custom.html",
    formatted_body,
    "m.mentions": {},
  });
  const sources = fitItems(
    m.sources.map((s, i) => ({
      link: `<li><a href="${href(s.url)}">${escapeMatrix(sourceTitles[i]!)}</a></li>`,
      text: `<li>${escapeMatrix(sourceTitles[i]!)} (${escapeMatrix(siteOf(s.url))})</li>`,
    })),
    (joined) => jsonBytes(content(html(joined))) <= CONTENT_MAX_BYTES,
    (parts) => parts.join(""),
  );
  return content(html(sources));
}
