/** Telegram bots: sendMessage to TELEGRAM_API_URL (the operator's setting), in HTML, link previews off. */
import { z } from "zod";
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";
import { readAnswer } from "../kit/delivery";
import { apprise } from "./apprise";
import { telegramPayload } from "./payload";

const BOT_TOKEN = /^\d{3,15}:[A-Za-z0-9_-]{20,100}$/;
const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;

export const telegram = defineChannel({
  type: "telegram",
  label: "Telegram",
  help: "Talk to @BotFather in Telegram: /newbot gives you the bot token (123456789:AA…). Add the bot to your group or channel (or send it a message), then take the chat's id (e.g. from https://api.telegram.org/bot<token>/getUpdates; a channel can use @its_name). The token is a secret: it is never shown again in full.",
  api: { id: "TelegramNotification", description: "Telegram channel (Bot API sendMessage, HTML)" },
  fields: {
    bot_token: field(text(), {
      label: "Bot token",
      kind: "text",
      placeholder: "123456789:AAH…",
      secret: "write-only",
      description: "The bot's token from @BotFather (write-only: reads show it redacted)",
    }),
    chat_id: field(z.union([text(), z.number().int()]), {
      label: "Chat id",
      kind: "text",
      placeholder: "-1001234567890 or @channel_name",
      description: "Chat id (-100…) or @channel_name",
    }),
  },
  example: { bot_token: "123456789:AAHabcdefghijklmnopqrstuvwxyz_1234", chat_id: "-1001234567890" },
  check(c) {
    const bot_token = c.bot_token.trim();
    const chat_id = String(c.chat_id).trim();
    if (!BOT_TOKEN.test(bot_token))
      throw new ConfigError("telegram bot_token must look like 123456789:AA… (from @BotFather)");
    if (!CHAT_ID.test(chat_id))
      throw new ConfigError("telegram chat_id must be a number (e.g. -1001234567890) or @channel_name");
    return { type: "telegram", bot_token, chat_id };
  },
  summary: (c) => `chat ${String(c.chat_id ?? "")}`,
  apprise,
  settings: {
    TELEGRAM_API_URL: z
      .url()
      .default("https://api.telegram.org")
      .describe("Telegram Bot API base (tests point it at a stub); trusted, so the private-address check skips it."),
  },
  delivery: {
    request: (m, c, settings) => ({
      url: `${settings.TELEGRAM_API_URL.replace(/\/+$/, "")}/bot${c.bot_token}/sendMessage`,
      body: telegramPayload(m, String(c.chat_id)),
      trusted: true,
    }),
    // A flood-limited bot is told how long to wait in the answer's parameters.
    read: (answer) => readAnswer(answer, ["parameters", "retry_after"]),
  },
});
