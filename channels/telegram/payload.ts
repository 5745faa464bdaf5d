/** sendMessage in HTML parse mode, link previews off: the event and watch, the finding, the answer and the links. */
import type { ApiMethods } from "@grammyjs/types";
import { fit, fitItems, fitText, siteOf, within, type Item } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";
import { TELEGRAM } from "./limits";

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

const VISIBLE = "characters after entities";
const TEXT_MAX = TELEGRAM.max.text!.max;
const LINK_MAX = TELEGRAM.max["link destination"]!.max;

/** A source as a link, or (its address too long) as its title and site. */
function source(url: string, title: string): Item {
  const label = fitText(title, 200, escapeTelegram, VISIBLE);
  const site = siteOf(url);
  return {
    link: href(url).length <= LINK_MAX ? `• <a href="${href(url)}">${label}</a>` : undefined,
    text: `• ${label}${site && site !== title ? ` (${escapeTelegram(site)})` : ""}`,
  };
}

/**
 * Within 4,096 characters as Telegram counts them, after parsing the HTML: tags and link destinations do not count,
 * so long source URLs never push the answer out. The head and each source title have bounds of their own, the sources
 * at most 1,500 characters, and the answer the rest (always room for all of it: it is at most 1,000 characters and its
 * defanging).
 */
export function telegramText(m: ChatMessage) {
  const head = `<b>${fitText(`${m.label}: ${m.watch}`, 300, escapeTelegram, VISIBLE)}</b>\n<b>${fitText(m.title, 500, escapeTelegram, VISIBLE)}</b>`;
  const confidence = m.confidence !== null ? `\nConfidence: ${percent(m.confidence)}` : "";
  const sources = fitItems(
    m.sources.map((s) => source(s.url, s.title)),
    within(1500, VISIBLE),
    (lines) => (lines.length ? `\n\nSources:\n${lines.join("\n")}` : ""),
  );
  const tail = `${confidence}${sources}\n\n<a href="${href(m.url)}">Open the watch</a>`;
  return fit(m.answer, within(TEXT_MAX, VISIBLE), (a) => `${head}${a ? `\n\n${escapeTelegram(a)}` : ""}${tail}`);
}

type SendMessage = Parameters<ApiMethods<unknown>["sendMessage"]>[0];

export function telegramPayload(m: ChatMessage, chatId: string, threadId?: number): SendMessage {
  return {
    chat_id: chatId,
    ...(threadId ? { message_thread_id: threadId } : {}),
    text: telegramText(m),
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
  };
}
