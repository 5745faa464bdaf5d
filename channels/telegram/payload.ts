/** sendMessage in HTML parse mode, link previews off: the event and watch, the finding, the answer and the links. */
import type { ApiMethods } from "@grammyjs/types";
import { fitEscaped, linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";

/**
 * The one escaping of text for Telegram's HTML: `&`, `<`, `>` and `"` as entities (no tag, no link), and `@` followed
 * by a word joiner so `@username` in model text mentions no one.
 */
export const escapeTelegram = (raw: string) =>
  raw
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/@/g, "@\u2060");

/** A link destination inside `href="…"`. */
const href = (url: string) => linkTarget(url).replace(/&/g, "&amp;");

/** A message's text is at most 4,096 characters (after entity parsing; the escaped form is kept within it too). */
export function telegramText(m: ChatMessage) {
  const head = `<b>${fitEscaped(`${m.label}: ${m.watch}`, 300, escapeTelegram)}</b>\n<b>${fitEscaped(m.title, 500, escapeTelegram)}</b>`;
  const confidence = m.confidence !== null ? `\nConfidence: ${percent(m.confidence)}` : "";
  const sources = m.sources.length
    ? `\n\nSources:\n${m.sources.map((s) => `• <a href="${href(s.url)}">${fitEscaped(s.title, 200, escapeTelegram)}</a>`).join("\n")}`
    : "";
  const tail = `${confidence}${sources}\n\n<a href="${href(m.url)}">Open the watch</a>`;
  const room = 4096 - head.length - tail.length - 4;
  const answer = m.answer ? `\n\n${fitEscaped(m.answer, Math.max(0, room), escapeTelegram)}` : "";
  return `${head}${answer}${tail}`;
}

type SendMessage = Parameters<ApiMethods<unknown>["sendMessage"]>[0];

export function telegramPayload(m: ChatMessage, chatId: string): SendMessage {
  return {
    chat_id: chatId,
    text: telegramText(m),
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
  };
}
