/**
 * A Google Chat message: a one-line `text` (the notification's preview) and one card (`cardsV2`) with the watch, the
 * finding, the answer, the confidence, the sources as links and a button to the watch.
 */
import { fitEscaped, linkTarget, percent, siteOf } from "../kit/format";
import type { ChatMessage } from "../kit/message";

/**
 * The one escaping of text for a card's formatted text (a small set of HTML): `&`, `<`, `>` and `"` as entities, so
 * no tag, link or `<users/all>` mention can be formed.
 */
export const escapeGoogleChat = (raw: string) =>
  raw.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * Text in Chat's own markup, where entities are not read: a word joiner after `<` (no `<users/all>` mention, no
 * `<url|label>` link) and between backquotes and `*`, `_`, `~` (no code block or formatting that spans our text).
 */
const markup = (raw: string) => raw.replace(/[<`*_~]/g, "$&\u2060");

/** A message is at most 32,000 bytes: the parts are capped so the whole stays far below it. */
export const MESSAGE_MAX_BYTES = 32_000;
const LINK_MAX = 2_000;

type Widget =
  | { textParagraph: { text: string } }
  | { decoratedText: { topLabel: string; text: string } }
  | { buttonList: { buttons: { text: string; onClick: { openLink: { url: string } } }[] } };

export function googleChatPayload(m: ChatMessage, threadKey?: string) {
  const html = (raw: string, max: number) => fitEscaped(raw, max, escapeGoogleChat).replace(/\n/g, "<br>");
  const sections: { header?: string; widgets: Widget[] }[] = [
    {
      widgets: [
        { textParagraph: { text: `<b>${html(m.watch, 400)}</b><br><b>${html(m.title, 600)}</b>` } },
        ...(m.answer ? [{ textParagraph: { text: html(m.answer, 8_000) } }] : []),
        ...(m.confidence !== null ? [{ decoratedText: { topLabel: "Confidence", text: percent(m.confidence) } }] : []),
      ],
    },
  ];
  if (m.sources.length) {
    const links = m.sources.map((s) => {
      const title = html(s.title, 200);
      const target = linkTarget(s.url);
      return target.length <= LINK_MAX
        ? `<a href="${target.replace(/&/g, "&amp;")}">${title}</a>`
        : `${title} (${escapeGoogleChat(siteOf(s.url))})`;
    });
    sections.push({ header: "Sources", widgets: [{ textParagraph: { text: links.join("<br>") } }] });
  }
  sections.push({
    widgets: [{ buttonList: { buttons: [{ text: "Open the watch", onClick: { openLink: { url: m.url } } }] } }],
  });
  return {
    text: markup(fitEscaped(`${m.label}: ${m.watch}`, 400, (s) => s)),
    cardsV2: [{ cardId: "watch", card: { header: { title: m.label }, sections } }],
    ...(threadKey ? { thread: { threadKey } } : {}),
  };
}
