/** The Block Kit message: a header, the finding, its confidence, the sources and a button to the watch. */
import type { KnownBlock } from "@slack/types";
import { fit, fitItems, fitText, siteOf, within, type Item } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";
import { SLACK } from "./limits";

/**
 * The one escaping of text for Slack's mrkdwn and plain_text: `&`, `<` and `>` as entities, so no `<!channel>`,
 * `<@U123>` or `<url|masked link>` can be formed (a bare `@here` does not notify from a webhook).
 */
export const escapeSlack = (raw: string) => raw.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A source as a link of ours (`<url|title>`, the URL's own `|` encoded), or as its title and site when that is too long. */
function source(url: string, title: string): Item {
  const label = fitText(title, 200, escapeSlack).replace(/\|/g, "¦");
  const site = siteOf(url);
  return {
    link: `• <${linkTarget(url).replace(/\|/g, "%7C")}|${label}>`,
    text: `• ${label}${site && site !== title ? ` (${escapeSlack(site)})` : ""}`,
  };
}

/**
 * Within Block Kit's limits by construction: the header within 150 characters, each section within 3,000 (the
 * finding's title within 300, the answer in the rest; the sources as many links as fit, then by site), five blocks.
 */
export function slackPayload(m: ChatMessage) {
  const section = within(SLACK.max["section text"]!.max);
  const title = m.title ? `${fitText(m.title, 300, escapeSlack)}\n\n` : "";
  const finding = fit(m.answer, section, (a) => `${title}${escapeSlack(a)}`.trim());
  const blocks: KnownBlock[] = [
    {
      type: "header",
      text: { type: "plain_text", text: fitText(`${m.label}: ${m.watch}`, SLACK.max["header text"]!.max, escapeSlack) },
    },
  ];
  // A section's text may not be empty.
  if (finding) blocks.push({ type: "section", text: { type: "mrkdwn", text: finding } });
  if (m.confidence !== null)
    blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `Confidence ${percent(m.confidence)}` }] });
  const sources = fitItems(
    m.sources.map((s) => source(s.url, s.title)),
    section,
    (lines) => (lines.length ? `*Sources*\n${lines.join("\n")}` : ""),
  );
  if (sources) blocks.push({ type: "section", text: { type: "mrkdwn", text: sources } });
  blocks.push({
    type: "actions",
    elements: [{ type: "button", text: { type: "plain_text", text: "Open the watch" }, url: m.url }],
  });
  return { text: fitText(`${m.label}: ${m.watch}: ${m.title}`, 3000, escapeSlack), blocks };
}
