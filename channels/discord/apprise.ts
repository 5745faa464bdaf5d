/** `discord://WebhookID/WebhookToken` and a pasted `https://discord.com/api/webhooks/…` URL. */
import { AppriseError, unquote, type Apprise } from "../kit/apprise";

export const apprise: Apprise = {
  schemes: ["discord"],
  example: "discord://123456789/WebhookToken",
  parse(url) {
    const id = unquote(url.host);
    const [token] = url.path;
    if (!/^\d+$/.test(id) || !token)
      throw new AppriseError("a Discord URL is discord://WebhookID/WebhookToken (the ID is a number)");
    return { url: `https://discord.com/api/webhooks/${id}/${token}` };
  },
  native: (raw) => {
    const m = /^https?:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/(\d+)\/([\w-]+)\/?(\?.+)?$/i.exec(
      raw,
    );
    return m ? `discord://${m[1]}/${m[2]}/${m[3] ?? ""}` : null;
  },
};
