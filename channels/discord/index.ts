/** Discord webhooks: one embed, mentions switched off. */
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";
import { readAnswer } from "../kit/delivery";
import { checkUrl } from "../kit/urls";
import { apprise } from "./apprise";
import { DISCORD } from "./limits";
import { discordPayload } from "./payload";

const withQuery = (url: string, name: string, value: string) => {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
};

export const discord = defineChannel({
  type: "discord",
  label: "Discord",
  help: "In Discord: Server Settings → Integrations → Webhooks → New Webhook, pick the channel, Copy Webhook URL (https://discord.com/api/webhooks/…). The URL is a secret: it is never shown again in full.",
  api: { id: "DiscordNotification", description: "Discord channel (webhook with an embed; mentions off)" },
  fields: {
    url: field(text(), {
      label: "Webhook URL",
      kind: "url",
      placeholder: "https://discord.com/api/webhooks/123456789/XXXXXXXX",
      secret: "write-only",
      description: "Webhook URL (write-only: reads show it redacted)",
    }),
    thread_id: field(text().optional(), {
      label: "Thread id",
      kind: "text",
      placeholder: "optional: a thread or forum post's id",
      description: "A thread of the webhook's channel (or a post of its forum) to post in: its id",
    }),
  },
  example: { url: "https://discord.com/api/webhooks/123456789/XXXXXXXXXXXXXXXX" },
  check(c, context) {
    const url = checkUrl("discord url", c.url.trim(), context);
    const thread_id = c.thread_id?.trim();
    if (thread_id && !/^\d{1,20}$/.test(thread_id))
      throw new ConfigError("discord thread_id must be a thread's id (a number)");
    return { type: "discord", url, ...(thread_id ? { thread_id } : {}) };
  },
  summary: (c) => `${String(c.url ?? "")}${c.thread_id ? `, thread ${String(c.thread_id)}` : ""}`,
  apprise,
  delivery: {
    // A thread is named by the query (the thread is unarchived if need be).
    request: (m, c) => ({
      url: c.thread_id ? withQuery(c.url, "thread_id", c.thread_id) : c.url,
      body: discordPayload(m),
    }),
    // A rate-limited webhook says how long to wait in its JSON body too.
    read: (answer) => readAnswer(answer, ["retry_after"]),
  },
  limits: DISCORD,
});
