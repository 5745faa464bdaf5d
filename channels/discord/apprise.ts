/**
 * `discord://WebhookID/WebhookToken[?thread=…]` and a pasted `https://discord.com/api/webhooks/…` URL (`discordapp.com`
 * is stored as `discord.com`, as Apprise sends it). What would change who posts or who is pinged (a username or avatar,
 * pings, text-to-speech, flags, a title link, a payload template) is refused by name.
 */
import { AppriseError, parseBool, unquote, type Apprise } from "../kit/apprise";

export const apprise: Apprise = {
  schemes: ["discord"],
  example: "discord://123456789/WebhookToken",
  options: ["botname", "avatar_url", "tts", "ping", "flags", "href", "url", "template", "thread"],
  parse(url) {
    const q = url.query;
    const id = unquote(url.host);
    const [token] = url.path;
    if (!id || !token) throw new AppriseError("not a Discord webhook: discord://WebhookID/WebhookToken");
    if (url.user || q.botname)
      throw new AppriseError("Discord username overrides (botname@ or botname=) are not supported");
    if (q.avatar_url) throw new AppriseError("Discord avatar overrides (avatar_url=) are not supported");
    if (parseBool(q.tts, false)) throw new AppriseError("Discord text-to-speech (tts=yes) is not supported");
    if (q.ping !== undefined)
      throw new AppriseError("Discord pings (ping=) are not supported: Watch never mentions users or roles");
    if (q.flags !== undefined) throw new AppriseError("Discord message flags (flags=) are not supported");
    if (q.href || q.url)
      throw new AppriseError(
        "Discord title links (href= / url=) are not supported: Watch links each message to its watch",
      );
    if (q.template)
      throw new AppriseError(
        "Discord payload templates (template=) are not supported: Watch sends its own message layout",
      );
    return { url: `https://discord.com/api/webhooks/${id}/${token}`, ...(q.thread ? { thread_id: q.thread } : {}) };
  },
  native(raw) {
    const m = /^https?:\/\/discord(?:app)?\.com\/api\/webhooks\/(\d+)\/([\w-]+)\/?(\?.+)?$/i.exec(raw);
    if (m) return `discord://${m[1]}/${m[2]}/${m[3] ?? ""}`;
    // Another address on Discord's domains (ptb., canary., a broken path) is not a webhook Apprise reads.
    return /^https?:\/\/([\w-]+\.)*discord(app)?\.com(\/|$)/i.test(raw) ? "discord://" : null;
  },
};
