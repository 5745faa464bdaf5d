/** `mmost[s]://host[:port][/path]/token[?to=channel]` and a pasted `https://mattermost.…/hooks/…` URL. */
import { AppriseError, hostPart, pathParts, type Apprise } from "../kit/apprise";

const FORM = "mmost[s]://host[:port][/path]/token";
const list = (value: string | null) => (value ?? "").split(/[\s,]+/).filter(Boolean);

export const apprise: Apprise = {
  schemes: ["mmost", "mmosts"],
  example: "mmosts://chat.example.com/abcdefghijklmnopqrstuvwxyz",
  // mmost[s]://[botname@]host[:port][/path…]/token: the last path part is the webhook's token, the rest its path.
  parse(url) {
    const q = url.searchParams;
    const mode = q.get("mode")?.toLowerCase();
    if (mode && !"webhook".startsWith(mode) && !"bot".startsWith(mode))
      throw new AppriseError("the Mattermost mode= must be webhook or bot");
    if ((mode && "bot".startsWith(mode)) || q.has("team"))
      throw new AppriseError(
        `Mattermost bot/API tokens (mode=bot, team=) are not supported: use an incoming webhook (${FORM})`,
      );
    const parts = pathParts(url);
    const token = parts.pop();
    if (!hostPart(url) || !token) throw new AppriseError(`not a Mattermost webhook URL: ${FORM}`);
    if (url.username || q.has("botname"))
      throw new AppriseError("Mattermost username overrides (botname@ or botname=) are not supported");
    if (q.has("icon_url")) throw new AppriseError("Mattermost icon overrides (icon_url=) are not supported");
    const channels = [...list(q.get("to")), ...list(q.get("channel")), ...list(q.get("channels"))].map((c) =>
      c.replace(/^#/, ""),
    );
    if (channels.length > 1)
      throw new AppriseError("several Mattermost channels in one URL are not supported: one channel per Watch channel");
    const origin = `${url.protocol === "mmosts:" ? "https" : "http"}://${url.host}`;
    const path = parts.map((p) => `/${encodeURIComponent(p)}`).join("");
    return {
      url: `${origin}${path}/hooks/${encodeURIComponent(token)}`,
      ...(channels[0] ? { channel: channels[0] } : {}),
    };
  },
  // Kept as pasted (Apprise itself drops a port it was given here). Mattermost's tokens are 26 letters and digits.
  native: (url) =>
    /\/hooks\/[a-z0-9]{26}$/.test(url.pathname) ||
    (/^mattermost\./i.test(url.hostname) && /\/hooks\/[^/]+$/.test(url.pathname))
      ? { url: url.toString() }
      : null,
};
