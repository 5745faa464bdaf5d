/**
 * `tgram://BotToken/ChatID` (a chat id, or a channel's name, sent as `@name`), with a forum topic as `ChatID:Topic`,
 * `?topic=` or `?thread=`. One chat per channel; what Watch does not send (bot-owner detection, silent messages, link
 * previews, rich-message templates) is refused by name.
 */
import { AppriseError, parseBool, readAppriseUrl, type Apprise } from "../kit/apprise";

/** Apprise's IS_CHAT_ID_RE: a chat id, or a name (with or without its `@`), and a topic after `:`. */
const CHAT = /^(?:(-?\d{1,32})|(?:@|%40)?([a-z_-][a-z0-9_-]+))(?:(?::|%3A)(\d+))?$/i;

const NOT_TELEGRAM = "not a Telegram URL: tgram://BotToken/ChatID (the token looks like 123456789:AA…)";

export const apprise: Apprise = {
  schemes: ["tgram"],
  example: "tgram://123456789:AAHtoken/ChatID",
  options: ["to", "topic", "thread", "silent", "preview", "template"],
  // The bot token's colon is not a port: as Apprise does, the URL is read again from the token's first half on.
  parse(url) {
    const m = /^tgram:\/\/(?:bot)?(?:[a-z0-9_-]+(?::[a-z0-9_-]+)?@)?(\d+)(?::|%3A)+(.*)$/is.exec(url.raw);
    const rest = m && readAppriseUrl(`tgram://${m[1]}/${m[2]}`);
    const [secondHalf, ...path] = rest?.path ?? [];
    if (!m || !secondHalf || !/^[a-z0-9_-]+$/i.test(secondHalf)) throw new AppriseError(NOT_TELEGRAM);
    const q = url.query;
    if (q.template)
      throw new AppriseError(
        "Telegram rich-message templates (template=) are not supported: Watch sends its own message layout",
      );
    if (q.content !== undefined && !/^(before|after)$/i.test(q.content))
      throw new AppriseError(
        "content= must be before or after (and it only concerns attachments, which Watch does not send)",
      );
    const topic = q.topic ?? q.thread;
    if (topic !== undefined && !/^\d+$/.test(topic))
      throw new AppriseError("the Telegram topic (topic= / thread=) must be a number");
    if (parseBool(q.silent, false)) throw new AppriseError("Telegram silent messages (silent=yes) are not supported");
    if (parseBool(q.preview, false))
      throw new AppriseError(
        "Telegram link previews (preview=yes) are not supported: Watch sends messages without previews",
      );
    const chats = [...path, ...(q.to?.split(/[\s,]+/) ?? [])].filter(Boolean);
    if (chats.length === 0)
      throw new AppriseError(
        "Telegram bot-owner detection (no chat in the URL) is not supported: add the chat id, tgram://BotToken/ChatID",
      );
    if (chats.length > 1)
      throw new AppriseError("several Telegram chats in one URL are not supported: one chat per Watch channel");
    const chat = CHAT.exec(chats[0]!);
    if (!chat)
      throw new AppriseError(
        "the chat is not a Telegram chat id (-100…) or channel name: Apprise would drop it and send nothing",
      );
    const thread = chat[3] ?? topic;
    return {
      bot_token: `${m[1]}:${secondHalf}`,
      chat_id: chat[1] ?? `@${chat[2]}`,
      ...(thread ? { message_thread_id: Number(thread) } : {}),
    };
  },
};
