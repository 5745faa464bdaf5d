/**
 * An `m.room.message` event: `m.text` with a plain body and an `org.matrix.custom.html` body, and an empty
 * `m.mentions` (intentional mentions: the event mentions no one and not the room, whatever its text says).
 */
import { fitEscaped, linkTarget, percent, siteOf } from "../kit/format";
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

/** A whole event may be 65,536 bytes (signatures and all): both bodies together stay far below it. */
export const EVENT_MAX_BYTES = 65_536;
const LINK_MAX = 4_000;

export function matrixContent(m: ChatMessage) {
  const head = fitEscaped(`${m.label}: ${m.watch}`, 400, (s) => s);
  const title = fitEscaped(m.title, 600, (s) => s);
  const html = [`<p><b>${escapeMatrix(head)}</b><br><b>${escapeMatrix(title)}</b></p>`];
  const text = [plain(head), plain(title)];
  if (m.answer) {
    html.push(`<p>${fitEscaped(m.answer, 8_000, escapeMatrix).replace(/\n/g, "<br>")}</p>`);
    text.push("", plain(m.answer));
  }
  if (m.confidence !== null) {
    html.push(`<p>Confidence: ${percent(m.confidence)}</p>`);
    text.push("", `Confidence: ${percent(m.confidence)}`);
  }
  if (m.sources.length) {
    const items = m.sources.map((s) => {
      const title = fitEscaped(s.title, 200, (t) => t);
      const target = linkTarget(s.url);
      return target.length <= LINK_MAX
        ? { html: `<a href="${href(s.url)}">${escapeMatrix(title)}</a>`, text: `${plain(title)}: ${target}` }
        : {
            html: `${escapeMatrix(title)} (${escapeMatrix(siteOf(s.url))})`,
            text: `${plain(title)} (${siteOf(s.url)})`,
          };
    });
    html.push(`<p>Sources:</p><ul>${items.map((i) => `<li>${i.html}</li>`).join("")}</ul>`);
    text.push("", "Sources:", ...items.map((i) => `- ${i.text}`));
  }
  html.push(`<p><a href="${href(m.url)}">Open the watch</a></p>`);
  text.push("", `Open the watch: ${m.url}`);
  return {
    msgtype: "m.text",
    body: text.join("\n"),
    format: "org.matrix.custom.html",
    formatted_body: html.join(""),
    "m.mentions": {},
  };
}
