/** `slack://TokenA/TokenB/TokenC` and a pasted `https://hooks.slack.com/services/…` URL. */
import { AppriseError, unquote, type Apprise } from "../kit/apprise";

export const HOOKS = "https://hooks.slack.com/services";

export const apprise: Apprise = {
  schemes: ["slack"],
  example: "slack://T0000/B0000/XXXXXXXX",
  parse(url) {
    const token = url.query.token?.split("/").filter(Boolean);
    const [a, b, c] = token ?? [unquote(url.host), ...url.path];
    if (a?.startsWith("xo"))
      throw new AppriseError(
        "Slack bot tokens (xoxb-…) are not supported: use an incoming webhook (slack://TokenA/TokenB/TokenC)",
      );
    if (!a || !b || !c) throw new AppriseError("a Slack URL needs three tokens: slack://TokenA/TokenB/TokenC");
    return { url: `${HOOKS}/${a}/${b}/${c}` };
  },
  native: (raw) => {
    const m = /^https?:\/\/hooks\.slack\.com\/services\/([A-Z0-9]+)\/([A-Z0-9]+)\/([A-Z0-9]+)\/?(\?.+)?$/i.exec(raw);
    return m ? `slack://${m[1]}/${m[2]}/${m[3]}/${m[4] ?? ""}` : null;
  },
};
