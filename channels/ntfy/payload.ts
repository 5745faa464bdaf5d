/** A JSON publish to the server's root: the topic, a title, a markdown message, a click-through to the watch. */
import { fit, fitItems, fitText, siteOf, within, type Item } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
import type { ChatMessage, MessageKind } from "../kit/message";
import { NTFY } from "./limits";

/**
 * The one escaping of text for ntfy's markdown: markdown characters (and `&`, which would start an entity)
 * backslash-escaped, so no link can be formed and the text shows as written.
 */
export const escapeNtfy = (raw: string) => raw.replace(/[\\*_~`|>[\]()#<!&-]/g, "\\$&");

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

/** A source as a markdown link, or as its title and site. */
function source(url: string, title: string): Item {
  const label = fitText(title, 100, escapeNtfy);
  const site = siteOf(url);
  return {
    link: `- [${label}](${linkTarget(url)})`,
    text: `- ${label}${site && site !== title ? ` (${escapeNtfy(site)})` : ""}`,
  };
}

/**
 * Within ntfy's limits by construction: a message of at most 4,096 bytes of UTF-8 (past it ntfy turns the message into
 * an attachment) in a JSON body of at most 8,192. The finding's title takes at most 600 bytes, the sources 1,200 (whole
 * links, then sites), and the answer the rest, measured on the whole message and the whole body.
 */
export function ntfyPayload(m: ChatMessage, topic: string) {
  const body = {
    topic,
    title: fitText(`${m.label}: ${m.watch}`, NTFY.max.title!.max),
    message: "",
    click: m.url,
    tags: TAGS[m.kind],
    priority: m.kind === "met" || m.kind === "retracted" || m.kind === "failing" ? 4 : 3,
    markdown: true,
  };
  const heading = m.title ? `**${fitText(m.title, 600, escapeNtfy, "bytes")}**` : "";
  const confidence = m.confidence !== null ? `\n\nConfidence: ${percent(m.confidence)}` : "";
  const sources = fitItems(
    m.sources.map((s) => source(s.url, s.title)),
    within(1200, "bytes"),
    (lines) => (lines.length ? `\n\n**Sources**\n${lines.join("\n")}` : ""),
  );
  const fits = (message: string) => NTFY.check({ url: "", body: { ...body, message } }).length === 0;
  const compose = (answer: string) =>
    `${[heading, escapeNtfy(answer)].filter(Boolean).join("\n\n")}${confidence}${sources}`.trim();
  return { ...body, message: fit(m.answer, fits, compose) };
}
