/** Telegram bots: sendMessage in HTML parse mode, link previews off, to TELEGRAM_API_URL (the operator's setting). */
import type { ApiMethods } from "@grammyjs/types";
import { z } from "zod";
import { telegram as spec } from "../../../client/channels/telegram";
import { env } from "../../env";
import { text } from "../../../lib/text";
import { chatChannel } from "./chat";
import { invalid } from "./http";
import { fitEscaped, percent, type ChatMessage } from "./message";

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

const href = (url: string) => url.replace(/&/g, "&amp;").replace(/"/g, "%22").replace(/</g, "%3C").replace(/>/g, "%3E");

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

const BOT_TOKEN = /^\d{3,15}:[A-Za-z0-9_-]{20,100}$/;
const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;

export const TelegramNotification = z
  .object({
    type: z.literal("telegram"),
    bot_token: text().meta({ description: "The bot's token from @BotFather (write-only: reads show it redacted)" }),
    chat_id: z.union([text(), z.number().int()]).meta({ description: "Chat id (-100…) or @channel_name" }),
  })
  .meta({ id: "TelegramNotification", description: "Telegram channel (Bot API sendMessage, HTML)" });

export const telegram = chatChannel({
  spec,
  schema: TelegramNotification,
  check(c) {
    const bot_token = c.bot_token.trim();
    const chat_id = String(c.chat_id).trim();
    if (!BOT_TOKEN.test(bot_token)) throw invalid("telegram bot_token must look like 123456789:AA… (from @BotFather)");
    if (!CHAT_ID.test(chat_id))
      throw invalid("telegram chat_id must be a number (e.g. -1001234567890) or @channel_name");
    return { type: "telegram", bot_token, chat_id };
  },
  request: (m, c) => ({
    url: `${env.TELEGRAM_API_URL.replace(/\/+$/, "")}/bot${c.bot_token}/sendMessage`,
    body: telegramPayload(m, String(c.chat_id)),
    trusted: true,
  }),
});
