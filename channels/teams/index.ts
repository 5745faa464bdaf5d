/** Microsoft Teams Workflows webhooks: a message with one Adaptive Card 1.4. */
import { text } from "../../lib/text";
import { defineChannel, field } from "../kit/define";
import { checkUrl } from "../kit/urls";
import { apprise } from "./apprise";
import { teamsPayload } from "./payload";

export const teams = defineChannel({
  type: "teams",
  label: "Microsoft Teams",
  help: "In Teams: on the channel, … → Workflows → “Post to a channel when a webhook request is received”, finish the steps and copy the URL it shows. (Office 365 connector URLs stop working when Microsoft retires connectors.) The URL is a secret: it is never shown again in full.",
  api: { id: "TeamsNotification", description: "Microsoft Teams channel (Workflows webhook, Adaptive Card 1.4)" },
  fields: {
    url: field(text(), {
      label: "Workflows webhook URL",
      kind: "url",
      placeholder: "https://….logic.azure.com:443/workflows/…/triggers/manual/paths/invoke?…",
      secret: "write-only",
      description: "Teams Workflows webhook URL (write-only: reads show it redacted)",
    }),
  },
  example: {
    url: "https://prod-01.westus.logic.azure.com:443/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=SIGNATURE",
  },
  check: (c, context) => ({ type: "teams", url: checkUrl("teams url", c.url.trim(), context) }),
  summary: (c) => String(c.url ?? ""),
  apprise,
  delivery: { request: (m, c) => ({ url: c.url, body: teamsPayload(m) }) },
});
