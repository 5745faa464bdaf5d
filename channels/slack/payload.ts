/** The Block Kit message: a header, the finding, its confidence, the sources and a button to the watch. */
import type { KnownBlock } from "@slack/types";
import { fitEscaped, linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";

/**
 * The one escaping of text for Slack's mrkdwn and plain_text: `&`, `<` and `>` as entities, so no `<!channel>`,
 * `<@U123>` or `<url|masked link>` can be formed (a bare `@here` does not notify from a webhook).
 */
export const escapeSlack = (raw: string) => raw.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A link of ours (a source, the watch): `<url|label>`, the URL's own `|` encoded as well. */
const link = (url: string, label: string) =>
  `<${linkTarget(url).replace(/\|/g, "%7C")}|${fitEscaped(label, 200, escapeSlack).replace(/\|/g, "¦")}>`;

/** Block Kit limits: a header's text 150 characters, a section's 3,000, the fallback text 40,000. */
export function slackPayload(m: ChatMessage) {
  const blocks: KnownBlock[] = [
    { type: "header", text: { type: "plain_text", text: fitEscaped(`${m.label}: ${m.watch}`, 150, escapeSlack) } },
    {
      type: "section",
      text: { type: "mrkdwn", text: fitEscaped(`${m.title}\n\n${m.answer}`.trim(), 3000, escapeSlack) },
    },
  ];
  if (m.confidence !== null)
    blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `Confidence ${percent(m.confidence)}` }] });
  if (m.sources.length)
    blocks.push({
      type: "section",
      text: { type: "mrkdwn", text: `*Sources*\n${m.sources.map((s) => `• ${link(s.url, s.title)}`).join("\n")}` },
    });
  blocks.push({
    type: "actions",
    elements: [{ type: "button", text: { type: "plain_text", text: "Open the watch" }, url: m.url }],
  });
  return { text: fitEscaped(`${m.label}: ${m.watch}: ${m.title}`, 3000, escapeSlack), blocks };
}
