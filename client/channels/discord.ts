import { AppriseError, defineSpec, hostPart, pathParts } from "./spec";

export const discord = defineSpec({
  type: "discord",
  label: "Discord",
  help: "In Discord: Server Settings → Integrations → Webhooks → New Webhook, pick the channel, Copy Webhook URL (https://discord.com/api/webhooks/…). The URL is a secret: it is never shown again in full.",
  fields: [
    {
      name: "url",
      label: "Webhook URL",
      kind: "url",
      placeholder: "https://discord.com/api/webhooks/123456789/XXXXXXXX",
      secret: "write-only",
    },
  ],
  apprise: {
    schemes: ["discord"],
    example: "discord://WebhookID/WebhookToken",
    // discord://[botname@]WebhookID/WebhookToken
    parse(url) {
      const id = hostPart(url);
      const [token] = pathParts(url);
      if (!/^\d+$/.test(id) || !token)
        throw new AppriseError("a Discord URL is discord://WebhookID/WebhookToken (the ID is a number)");
      return { url: `https://discord.com/api/webhooks/${id}/${token}` };
    },
    native: (url) =>
      /^(ptb\.|canary\.)?discord(app)?\.com$/i.test(url.hostname) && url.pathname.startsWith("/api/webhooks/")
        ? { url: url.toString() }
        : null,
  },
  summary: (c) => String(c.url ?? ""),
});
