/** Google Chat incoming webhooks: a card message in the space the webhook was made for, in a thread when asked. */
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";
import { checkUrl } from "../kit/urls";
import { API, apprise } from "./apprise";
import { limits } from "./limits";
import { googleChatPayload } from "./payload";

export const googlechat = defineChannel({
  type: "googlechat",
  label: "Google Chat",
  help: "In Google Chat: open the space → its name → Apps & integrations → Webhooks → Add webhook, name it and copy the URL (https://chat.googleapis.com/v1/spaces/…/messages?key=…&token=…). Its key and token are secrets: the URL is never shown again in full.",
  api: { id: "GoogleChatNotification", description: "Google Chat space (incoming webhook, card message)" },
  fields: {
    url: field(text(), {
      label: "Webhook URL",
      kind: "url",
      placeholder: `${API}/AAAA…/messages?key=…&token=…`,
      secret: "write-only",
      description: "Incoming webhook URL with its key and token (write-only: reads show it redacted)",
    }),
    thread_key: field(text().optional(), {
      label: "Thread key",
      kind: "text",
      placeholder: "watch-alerts (optional: every message in one thread)",
      description: "Post every message in the thread with this key (started by the first one)",
    }),
  },
  example: { url: `${API}/AAAAexample/messages?key=AIzaSyExampleKey&token=exampleTokenExampleToken` },
  check(c, context) {
    const url = checkUrl("googlechat url", c.url.trim(), context);
    const u = new URL(url);
    if (
      !/^\/v1\/spaces\/[^/]+\/messages$/.test(u.pathname) ||
      !u.searchParams.get("key") ||
      !u.searchParams.get("token")
    )
      throw new ConfigError("googlechat url must be a space's webhook URL (…/v1/spaces/…/messages?key=…&token=…)");
    const thread_key = c.thread_key?.trim();
    if (thread_key !== undefined && thread_key !== "" && !/^[\x21-\x7e]{1,200}$/.test(thread_key))
      throw new ConfigError("googlechat thread_key must be letters, digits and symbols, without spaces");
    return { type: "googlechat", url, ...(thread_key ? { thread_key } : {}) };
  },
  summary: (c) => `${String(c.url ?? "")}${c.thread_key ? ` (thread ${String(c.thread_key)})` : ""}`,
  apprise,
  limits,
  delivery: {
    request(m, c) {
      const url = new URL(c.url);
      // A thread key's message joins that thread, or starts it when there is none yet.
      if (c.thread_key) url.searchParams.set("messageReplyOption", "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD");
      return { url: url.toString(), body: googleChatPayload(m, c.thread_key) };
    },
  },
});
