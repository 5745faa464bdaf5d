/** A message with one Adaptive Card 1.4: the event and watch, the finding, the answer, its confidence and sources. */
import type { IAdaptiveCard } from "@microsoft/teams.cards";
import { fitItems, fitText, jsonBytes, siteOf, type Item } from "../kit/fit";
import { linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";
import { TEAMS } from "./limits";

/**
 * The one escaping of text for an Adaptive Card TextBlock (which renders a subset of markdown): markdown characters
 * backslash-escaped, and `<`, `>` and `&` as entities, so no link, `<at>` mention or HTML can be formed.
 */
export const escapeTeams = (raw: string) =>
  raw
    .replace(/[\\*_~`|[\]()#-]/g, "\\$&")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");

/** A source as a markdown link, or as its title and site. */
function source(url: string, title: string): Item {
  const label = fitText(title, 200, escapeTeams);
  const site = siteOf(url);
  return {
    link: `- [${label}](${linkTarget(url)})`,
    text: `- ${label}${site && site !== title ? ` (${escapeTeams(site)})` : ""}`,
  };
}

function message(m: ChatMessage, sources: string) {
  const card: IAdaptiveCard = {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.4",
    body: [
      {
        type: "TextBlock",
        text: fitText(`${m.label}: ${m.watch}`, 300, escapeTeams),
        weight: "Bolder",
        wrap: true,
        isSubtle: true,
      },
      { type: "TextBlock", text: fitText(m.title, 500, escapeTeams), size: "Large", weight: "Bolder", wrap: true },
      ...(m.answer ? [{ type: "TextBlock" as const, text: fitText(m.answer, 3000, escapeTeams), wrap: true }] : []),
      ...(m.confidence !== null
        ? [{ type: "FactSet" as const, facts: [{ title: "Confidence", value: percent(m.confidence) }] }]
        : []),
      ...(sources ? [{ type: "TextBlock" as const, text: sources, wrap: true }] : []),
    ],
    actions: [{ type: "Action.OpenUrl", title: "Open the watch", url: m.url }],
  } as IAdaptiveCard;
  return {
    type: "message",
    attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }],
  };
}

/**
 * Within the 28 KB a Teams message may be, by construction: the texts have bounds of their own (about 14 KB at the
 * most, every character three bytes), and the sources take what is left, as whole links, then by site.
 */
export function teamsPayload(m: ChatMessage) {
  const fits = (sources: string) => jsonBytes(message(m, sources)) <= TEAMS.max.message!.max;
  return message(
    m,
    fitItems(
      m.sources.map((s) => source(s.url, s.title)),
      fits,
      (lines) => lines.join("\n"),
    ),
  );
}
