/** `discord://WebhookID/WebhookToken` and a pasted `https://discord.com/api/webhooks/…` URL. */
import { AppriseError, hostPart, pathParts, type Apprise } from "../kit/apprise";

export const apprise: Apprise = {
  schemes: ["discord"],
  example: "discord://123456789/WebhookToken",
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
};
