/**
 * A Google Chat message: a one-line `text` (the notification's preview) and one card (`cardsV2`) with the watch, the
 * finding, the answer, the confidence, the sources as links and a button to the watch.
 */
import { fitItems, fitText, jsonBytes, siteOf } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
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

/** A message is at most 32,000 bytes (of JSON, in UTF-8): what does not fit is the sources' links, shown by site. */
export const MESSAGE_MAX_BYTES = 32_000;

type Widget =
  | { textParagraph: { text: string } }
  | { decoratedText: { topLabel: string; text: string } }
  | { buttonList: { buttons: { text: string; onClick: { openLink: { url: string } } }[] } };

export function googleChatPayload(m: ChatMessage, threadKey?: string) {
  const html = (raw: string, max: number) => fitText(raw, max, escapeGoogleChat).replace(/\n/g, "<br>");
  const finding: Widget[] = [
    { textParagraph: { text: `<b>${html(m.watch, 400)}</b><br><b>${html(m.title, 600)}</b>` } },
    ...(m.answer ? [{ textParagraph: { text: html(m.answer, 8_000) } }] : []),
    ...(m.confidence !== null ? [{ decoratedText: { topLabel: "Confidence", text: percent(m.confidence) } }] : []),
  ];
  const button: Widget = {
    buttonList: { buttons: [{ text: "Open the watch", onClick: { openLink: { url: m.url } } }] },
  };
  const payload = (sources: string) => ({
    text: markup(fitText(`${m.label}: ${m.watch}`, 400)),
    cardsV2: [
      {
        cardId: "watch",
        card: {
          header: { title: m.label },
          sections: [
            { widgets: finding },
            ...(sources ? [{ header: "Sources", widgets: [{ textParagraph: { text: sources } }] }] : []),
            { widgets: [button] },
          ] as { header?: string; widgets: Widget[] }[],
        },
      },
    ],
    ...(threadKey ? { thread: { threadKey } } : {}),
  });
  const sources = fitItems(
    m.sources.map((s) => {
      const title = html(s.title, 200);
      return {
        link: `<a href="${linkTarget(s.url).replace(/&/g, "&amp;")}">${title}</a>`,
        text: `${title} (${escapeGoogleChat(siteOf(s.url))})`,
      };
    }),
    (joined) => jsonBytes(payload(joined)) <= MESSAGE_MAX_BYTES,
    (parts) => parts.join("<br>"),
  );
  return payload(sources);
}
