/** Microsoft Teams Workflows webhooks: a message with one Adaptive Card 1.4. */
import type { IAdaptiveCard } from "@microsoft/teams.cards";
import { z } from "zod";
import { teams as spec } from "../../../client/channels/teams";
import { text } from "../../../lib/text";
import { chatChannel } from "./chat";
import { checkUrl } from "./http";
import { fitEscaped, percent, type ChatMessage } from "./message";

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
                .map(
                  (s) =>
                    `- [${fitEscaped(s.title, 200, escapeTeams)}](${s.url.replace(/[()\s]/g, encodeURIComponent)})`,
                )
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

export const TeamsNotification = z
  .object({
    type: z.literal("teams"),
    url: text().meta({ description: "Teams Workflows webhook URL (write-only: reads show it redacted)" }),
  })
  .meta({ id: "TeamsNotification", description: "Microsoft Teams channel (Workflows webhook, Adaptive Card 1.4)" });

export const teams = chatChannel({
  spec,
  schema: TeamsNotification,
  check: (c) => ({ type: "teams", url: checkUrl("teams url", c.url.trim()) }),
  request: (m, c) => ({ url: c.url, body: teamsPayload(m) }),
});
