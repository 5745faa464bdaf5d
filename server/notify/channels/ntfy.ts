/** ntfy (phone push): a JSON publish to the server's root, with an access token when the topic is protected. */
import { z } from "zod";
import { ntfy as spec } from "../../../client/channels/ntfy";
import { text } from "../../../lib/text";
import { chatChannel } from "./chat";
import { checkUrl, invalid } from "./http";
import { fitEscaped, percent, type ChatMessage, type MessageKind } from "./message";

/** The one escaping of text for ntfy's markdown: markdown characters backslash-escaped, so no link can be formed. */
export const escapeNtfy = (raw: string) => raw.replace(/[\\*_~`|>[\]()#<!-]/g, "\\$&");

const TAGS: Record<MessageKind, string[]> = {
  met: ["white_check_mark"],
  retracted: ["warning"],
  failing: ["rotating_light"],
  recovered: ["green_circle"],
  test: ["bell"],
  account: ["information_source"],
};

/** The server and topic of a topic URL (`https://ntfy.sh/my-topic`: `https://ntfy.sh` and `my-topic`). */
export function topicOf(url: string) {
  const u = new URL(url);
  const parts = u.pathname.split("/").filter(Boolean);
  return {
    server: `${u.origin}${parts
      .slice(0, -1)
      .map((p) => `/${p}`)
      .join("")}`,
    topic: decodeURIComponent(parts.at(-1) ?? ""),
  };
}

/** ntfy keeps a message of up to 4,096 bytes as text: the message stays within 3,500 characters. */
export function ntfyPayload(m: ChatMessage, topic: string) {
  const sources = m.sources.length
    ? `\n\n**Sources**\n${m.sources.map((s) => `- [${fitEscaped(s.title, 200, escapeNtfy)}](${s.url.replace(/[()\s]/g, encodeURIComponent)})`).join("\n")}`
    : "";
  const confidence = m.confidence !== null ? `\n\nConfidence: ${percent(m.confidence)}` : "";
  const room = 3500 - sources.length - confidence.length;
  return {
    topic,
    title: fitEscaped(`${m.label}: ${m.watch}`, 250, (s) => s),
    message: `${fitEscaped(`${m.title}\n\n${m.answer}`.trim(), room, escapeNtfy)}${confidence}${sources}`,
    click: m.url,
    tags: TAGS[m.kind],
    priority: m.kind === "met" || m.kind === "retracted" || m.kind === "failing" ? 4 : 3,
    markdown: true,
  };
}

export const NtfyNotification = z
  .object({
    type: z.literal("ntfy"),
    url: text().meta({ description: "Server and topic, e.g. https://ntfy.sh/my-topic" }),
    token: text().optional().meta({ description: "Access token (tk_…) of a protected topic (write-only)" }),
  })
  .meta({ id: "NtfyNotification", description: "ntfy channel (phone push, JSON publish)" });

export const ntfy = chatChannel({
  spec,
  schema: NtfyNotification,
  check(c) {
    const url = checkUrl("ntfy url", c.url.trim());
    const { topic } = topicOf(url);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(topic)) throw invalid("ntfy url must end in a topic (letters, digits, - and _)");
    const token = c.token?.trim();
    if (token !== undefined && !/^[\x21-\x7e]{1,200}$/.test(token)) throw invalid("ntfy token has an invalid value");
    return { type: "ntfy", url, ...(token ? { token } : {}) };
  },
  request(m, c) {
    const { server, topic } = topicOf(c.url);
    return {
      url: server,
      body: ntfyPayload(m, topic),
      headers: c.token ? { authorization: `Bearer ${c.token}` } : undefined,
    };
  },
});
