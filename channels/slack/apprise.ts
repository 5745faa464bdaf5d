/** `slack://TokenA/TokenB/TokenC` and a pasted `https://hooks.slack.com/services/…` URL. */
import { AppriseError, hostPart, pathParts, type Apprise } from "../kit/apprise";

export const HOOKS = "https://hooks.slack.com/services";

export const apprise: Apprise = {
  schemes: ["slack"],
  example: "slack://T0000/B0000/XXXXXXXX",
  // slack://[botname@]TokenA/TokenB/TokenC[/#channel…]: an incoming webhook posts to its own channel, so the
  // channels Apprise may list after the tokens are not needed.
  parse(url) {
    const token = url.searchParams.get("token")?.split("/").filter(Boolean);
    const [a, b, c] = token ?? [hostPart(url), ...pathParts(url)];
    if (a?.startsWith("xo"))
      throw new AppriseError(
        "Slack bot tokens (xoxb-…) are not supported: use an incoming webhook (slack://TokenA/TokenB/TokenC)",
      );
    if (!a || !b || !c) throw new AppriseError("a Slack URL needs three tokens: slack://TokenA/TokenB/TokenC");
    return { url: `${HOOKS}/${a}/${b}/${c}` };
  },
  native: (url) =>
    /^hooks\.slack(-gov)?\.com$/i.test(url.hostname) && url.pathname.startsWith("/services/")
      ? { url: url.toString() }
      : null,
};
