/** A message with one Adaptive Card 1.4: the event and watch, the finding, the answer, its confidence and sources. */
import type { IAdaptiveCard } from "@microsoft/teams.cards";
import { fitEscaped, linkTarget, percent } from "../kit/format";
import type { ChatMessage } from "../kit/message";

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

/** Teams cards stay far below the 28 KB message limit: the answer is at most 1,000 characters. */
export function teamsPayload(m: ChatMessage) {
  const card: IAdaptiveCard = {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.4",
    body: [
      {
        type: "TextBlock",
        text: fitEscaped(`${m.label}: ${m.watch}`, 300, escapeTeams),
        weight: "Bolder",
        wrap: true,
        isSubtle: true,
      },
      { type: "TextBlock", text: fitEscaped(m.title, 500, escapeTeams), size: "Large", weight: "Bolder", wrap: true },
      ...(m.answer ? [{ type: "TextBlock" as const, text: fitEscaped(m.answer, 3000, escapeTeams), wrap: true }] : []),
      ...(m.confidence !== null
        ? [{ type: "FactSet" as const, facts: [{ title: "Confidence", value: percent(m.confidence) }] }]
        : []),
      ...(m.sources.length
        ? [
            {
              type: "TextBlock" as const,
              text: m.sources
                .map((s) => `- [${fitEscaped(s.title, 200, escapeTeams)}](${linkTarget(s.url)})`)
                .join("\n"),
              wrap: true,
            },
          ]
        : []),
    ],
    actions: [{ type: "Action.OpenUrl", title: "Open the watch", url: m.url }],
  } as IAdaptiveCard;
  return {
    type: "message",
    attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }],
  };
}
