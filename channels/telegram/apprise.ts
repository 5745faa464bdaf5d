/** `tgram://BotToken/ChatID`. */
import { AppriseError, type Apprise } from "../kit/apprise";

export const apprise: Apprise = {
  schemes: ["tgram"],
  example: "tgram://123456789:AAHtoken/ChatID",
  // tgram://[bot]BotToken/ChatID: the token's colon is not a valid URL port, so it is taken apart by hand first.
  parse(url, typed) {
    const raw = decodeURIComponent(typed);
    const m = /^tgram:\/\/(?:bot)?(?:[^@/]+@)?(\d+)(?::|%3A)([^/?#]+)(?:\/([^?#]*))?/i.exec(raw);
    if (!m) throw new AppriseError("a Telegram URL is tgram://BotToken/ChatID (the token looks like 123456789:AA…)");
    const chats = [...(m[3] ?? "").split("/"), ...(url.searchParams.get("to")?.split(/[\s,]+/) ?? [])].filter(Boolean);
    if (chats.length === 0)
      throw new AppriseError("add the chat to send to: tgram://BotToken/ChatID (Watch sends to one chat per channel)");
    if (chats.length > 1) throw new AppriseError("one chat per Telegram channel: tgram://BotToken/ChatID");
    return { bot_token: `${m[1]}:${m[2]}`, chat_id: chats[0] };
  },
};
