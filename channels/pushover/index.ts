/** Pushover: `POST {PUSHOVER_API_URL}/1/messages.json` with the application's token and the user's (or group's) key. */
import { z } from "zod";
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";
import { readAnswer, type HttpAnswer } from "../kit/delivery";
import { apprise } from "./apprise";
import { limits } from "./limits";
import { pushoverPayload } from "./payload";

const KEY = /^[A-Za-z0-9]{30}$/;

/**
 * Pushover asks that a 4xx not be sent again unchanged (a wrong token or key, a message it will never take): failed
 * for good, except a 429 (over the monthly quota), which may pass.
 */
function read(answer: HttpAnswer) {
  const outcome = readAnswer(answer);
  return answer.status >= 400 && answer.status < 500 && answer.status !== 429
    ? { ...outcome, permanent: true }
    : outcome;
}

export const pushover = defineChannel({
  type: "pushover",
  label: "Pushover",
  help: "On pushover.net: your user key is on the dashboard (or a group's key, to reach a group); create an application (Your Applications → Create an Application) for its API token. Both are secrets: they are never shown again in full.",
  api: { id: "PushoverNotification", description: "Pushover (phone push, HTML message)" },
  fields: {
    token: field(text(), {
      label: "Application API token",
      kind: "text",
      placeholder: "azGDORePK8gMaC0QOYAMyEEuzJnyUi",
      secret: "write-only",
      description: "The application's API token, 30 letters and digits (write-only: reads show it redacted)",
    }),
    user: field(text(), {
      label: "User or group key",
      kind: "text",
      placeholder: "uQiRzpo4DXghDmr9QzzfQu27cmVRsG",
      secret: "write-only",
      description: "The user's (or a group's) key, 30 letters and digits (write-only: reads show it redacted)",
    }),
  },
  example: { token: "azGDORePK8gMaC0QOYAMyEEuzJnyUi", user: "uQiRzpo4DXghDmr9QzzfQu27cmVRsG" },
  check(c) {
    const token = c.token.trim();
    const user = c.user.trim();
    if (!KEY.test(token))
      throw new ConfigError("pushover token must be 30 letters and digits (an application's API token)");
    if (!KEY.test(user)) throw new ConfigError("pushover user must be 30 letters and digits (a user or group key)");
    return { type: "pushover", token, user };
  },
  summary: (c) => `user ${String(c.user ?? "")}`,
  apprise,
  limits,
  settings: {
    PUSHOVER_API_URL: z
      .url()
      .default("https://api.pushover.net")
      .describe("Pushover API base (tests point it at a stub); trusted, so the private-address check skips it."),
  },
  delivery: {
    request: (m, c, settings) => ({
      url: `${settings.PUSHOVER_API_URL.replace(/\/+$/, "")}/1/messages.json`,
      body: pushoverPayload(m, c.token, c.user),
      trusted: true,
    }),
    read,
  },
});
