/**
 * `slack://TokenA/TokenB/TokenC` (`?mode=gov-hook` for Slack GovSlack) and a pasted
 * `https://hooks.slack.com/services/…` or `https://hooks.slack-gov.com/services/…` URL: an incoming webhook, which posts
 * to the channel it was created for under its own name. Bot tokens, workflow triggers, channel targets, username
 * overrides and Block Kit templates are refused by name.
 */
import { AppriseError, unquote, type Apprise } from "../kit/apprise";

export const HOOKS = "https://hooks.slack.com/services";
const GOV_HOOKS = "https://hooks.slack-gov.com/services";

const MODES = ["hook", "gov-hook", "bot", "workflow", "trigger"] as const;
/** How Apprise splits `?token=` and `?to=` (its CHANNEL_LIST_DELIM). */
const LIST = /[ \t\r\n,#\\/]+/;

const NOT_A_HOOK =
  "not a Slack incoming webhook: slack://TokenA/TokenB/TokenC (three tokens of letters and digits) or https://hooks.slack.com/services/…";

export const apprise: Apprise = {
  schemes: ["slack"],
  example: "slack://T0000/B0000/XXXXXXXX",
  options: ["mode", "token", "to", "template"],
  parse(url) {
    const q = url.query;
    // Apprise takes the first mode the value starts.
    const mode = q.mode ? MODES.find((m) => m.startsWith(q.mode!)) : "hook";
    if (!mode) throw new AppriseError("the Slack mode= is not one of hook, gov-hook, bot, workflow, trigger");
    const host = unquote(url.host);
    const entries = [host, ...url.path].filter(Boolean);
    if (mode === "workflow" || mode === "trigger") {
      if (entries.length !== (mode === "workflow" ? 4 : 3))
        throw new AppriseError(
          "Slack workflow triggers are not supported (and this workflow path is incomplete): use an incoming webhook",
        );
      throw new AppriseError(
        "Slack workflow triggers (hooks.slack.com/workflows|triggers) are not supported: use an incoming webhook (hooks.slack.com/services/…)",
      );
    }
    // The host and the next two path parts are the tokens, the rest targets; `?token=` replaces the tokens only.
    let [a, b, c]: (string | undefined)[] = [host, url.path[0], url.path[1]];
    const targets = [...url.path.slice(2), ...(q.to?.split(LIST) ?? [])].filter(Boolean);
    if (q.token) [a, b, c] = q.token.split(LIST).filter(Boolean);
    if (a?.startsWith("xo"))
      throw new AppriseError(
        "Slack bot tokens (xoxb-/xoxp-…) are not supported: use an incoming webhook (slack://TokenA/TokenB/TokenC)",
      );
    if (mode === "bot")
      throw new AppriseError(
        "Slack bot tokens (mode=bot) are not supported, and this URL has none: use an incoming webhook",
      );
    if (!a || !b || !c || !/^[A-Z0-9]+$/i.test(a) || !/^[A-Z0-9]+$/i.test(b) || !/^[A-Z0-9]+$/i.test(c))
      throw new AppriseError(NOT_A_HOOK);
    if (q.template)
      throw new AppriseError(
        "Slack Block Kit templates (template=) are not supported: Watch sends its own message layout",
      );
    if (url.user)
      throw new AppriseError(
        "Slack username overrides (botname@ or user=) are not supported: the incoming webhook posts under its own name",
      );
    if (targets.length)
      throw new AppriseError(
        "Slack channel, user or email targets are not supported: an incoming webhook posts to the channel it was created for",
      );
    return { url: `${mode === "gov-hook" ? GOV_HOOKS : HOOKS}/${a}/${b}/${c}` };
  },
  native(raw) {
    const m = /^https?:\/\/hooks\.slack(-gov)?\.com\/(services|workflows|triggers)\/([^?]*?)\/?(\?.*)?$/i.exec(raw);
    if (!m) return /^https?:\/\/hooks\.slack(-gov)?\.com(\/|$)/i.test(raw) ? "slack://" : null;
    const [, gov, kind, path, query] = m;
    const type = kind!.toLowerCase();
    const mode = type === "services" ? (gov ? "gov-hook" : "hook") : type === "triggers" ? "trigger" : "workflow";
    const params = new URLSearchParams(query ?? "");
    params.set("mode", mode);
    return `slack://${path}/?${params}`;
  },
};
