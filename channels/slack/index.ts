/** Slack incoming webhooks: a Block Kit message posted to the webhook's own channel. */
import { text } from "../../lib/text";
import { defineChannel, field } from "../kit/define";
import { checkUrl } from "../kit/urls";
import { apprise, HOOKS } from "./apprise";
import { slackPayload } from "./payload";

export const slack = defineChannel({
  type: "slack",
  label: "Slack",
  help: "In Slack: create an app (api.slack.com/apps), turn on Incoming Webhooks, add one to the channel and copy its URL (https://hooks.slack.com/services/…). The URL is a secret: it is never shown again in full.",
  api: { id: "SlackNotification", description: "Slack channel (incoming webhook, Block Kit message)" },
  fields: {
    url: field(text(), {
      label: "Incoming webhook URL",
      kind: "url",
      placeholder: `${HOOKS}/T0000/B0000/XXXXXXXX`,
      secret: "write-only",
      description: "Incoming webhook URL (write-only: reads show it redacted)",
    }),
  },
  example: { url: `${HOOKS}/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX` },
  check: (c, context) => ({ type: "slack", url: checkUrl("slack url", c.url.trim(), context) }),
  summary: (c) => String(c.url ?? ""),
  apprise,
  delivery: { request: (m, c) => ({ url: c.url, body: slackPayload(m) }) },
});
