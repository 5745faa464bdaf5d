/** `mmost[s]://host[:port][/path]/token[?to=channel]` and a pasted `https://mattermost.…/hooks/…` URL. */
import { AppriseError, isHostname, unquote, type Apprise } from "../kit/apprise";

const FORM = "mmost[s]://host[:port][/path]/token";
const list = (value: string | undefined) => (value ?? "").split(/[\s,]+/).filter(Boolean);

export const apprise: Apprise = {
  schemes: ["mmost", "mmosts"],
  example: "mmosts://chat.example.com/abcdefghijklmnopqrstuvwxyz",
  options: ["mode", "team", "botname", "icon_url", "to", "channel", "channels"],
  // mmost[s]://[botname@]host[:port][/path…]/token: the last path part is the webhook's token, the rest its path.
  parse(url) {
    const q = url.query;
    const mode = q.mode?.toLowerCase();
    if (mode && !"webhook".startsWith(mode) && !"bot".startsWith(mode))
      throw new AppriseError("the Mattermost mode= must be webhook or bot");
    if ((mode && "bot".startsWith(mode)) || q.team !== undefined)
      throw new AppriseError(
        `Mattermost bot/API tokens (mode=bot, team=) are not supported: use an incoming webhook (${FORM})`,
      );
    const path = [...url.path];
    const token = path.pop();
    const host = isHostname(unquote(url.host));
    if (!host || !token) throw new AppriseError(`not a Mattermost webhook URL: ${FORM}`);
    if (url.user || q.botname !== undefined)
      throw new AppriseError("Mattermost username overrides (botname@ or botname=) are not supported");
    if (q.icon_url !== undefined) throw new AppriseError("Mattermost icon overrides (icon_url=) are not supported");
    const channels = [...list(q.to), ...list(q.channel), ...list(q.channels)].map((c) => c.replace(/^#/, ""));
    if (channels.length > 1)
      throw new AppriseError("several Mattermost channels in one URL are not supported: one channel per Watch channel");
    const origin = `${url.scheme === "mmosts" ? "https" : "http"}://${host}${url.port ? `:${url.port}` : ""}`;
    const prefix = path.map((p) => `/${encodeURIComponent(p)}`).join("");
    return {
      url: `${origin}${prefix}/hooks/${encodeURIComponent(token)}`,
      ...(channels[0] ? { channel: channels[0] } : {}),
    };
  },
  // Apprise reads a pasted URL on a `mattermost.` host; a webhook's own 26-letter token names it on any host. The
  // port is kept (Apprise drops it).
  native: (raw) => {
    const m = /^http(s?):\/\/([^/?#:]+)(:\d+)?((?:\/[^/?#]+)*)\/hooks\/([a-z0-9]+)\/?(\?.*)?$/i.exec(raw);
    if (!m || !(/^mattermost\./i.test(m[2]!) || /^[a-z0-9]{26}$/.test(m[5]!))) return null;
    return `mmost${m[1]}://${m[2]}${m[3] ?? ""}${m[4]}/${m[5]}${m[6] ?? ""}`;
  },
};
