/** A JSON publish to the server's root: the topic, a title, a markdown message, a click-through to the watch. */
import { fitEscaped, linkTarget, percent } from "../kit/format";
import type { ChatMessage, MessageKind } from "../kit/message";

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
    ? `\n\n**Sources**\n${m.sources.map((s) => `- [${fitEscaped(s.title, 200, escapeNtfy)}](${linkTarget(s.url)})`).join("\n")}`
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
