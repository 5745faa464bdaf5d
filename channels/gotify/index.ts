/** Gotify (self-hosted push): `POST {server}/message` with the application's token, markdown, a click-through. */
import { z } from "zod";
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";
import { checkUrl } from "../kit/urls";
import { apprise } from "./apprise";
import { limits } from "./limits";
import { gotifyPayload, PRIORITIES, type Priority } from "./payload";

export const gotify = defineChannel({
  type: "gotify",
  label: "Gotify",
  help: "In your Gotify server's web UI: Apps → Create Application, then copy its token. The server URL is the address of the web UI (https://push.example.com/). The token is a secret: it is never shown again in full.",
  api: { id: "GotifyNotification", description: "Gotify (self-hosted push, markdown message)" },
  fields: {
    url: field(text(), {
      label: "Server URL",
      kind: "url",
      placeholder: "https://push.example.com/",
      description: "The Gotify server's address (messages go to its /message)",
    }),
    token: field(text(), {
      label: "Application token",
      kind: "text",
      placeholder: "AbCdEf.123456",
      secret: "write-only",
      description: "The application's token (write-only: reads show it redacted)",
    }),
    priority: field(z.enum(Object.keys(PRIORITIES) as [Priority, ...Priority[]]).default("normal"), {
      label: "Priority",
      kind: "choice",
      description:
        "How the phone announces a message: low 0, moderate 3, normal 5 (the default: a sound), high 8 (pops up), emergency 10",
    }),
  },
  example: { url: "https://push.example.com/", token: "AbCdEfGhIjKlMnO", priority: "normal" },
  check(c, context) {
    const url = checkUrl("gotify url", c.url.trim(), context);
    const u = new URL(url);
    if (u.search || u.hash) throw new ConfigError("gotify url must be the server's address, without ? or #");
    const token = c.token.trim();
    if (!/^[\x21-\x7e]{1,200}$/.test(token)) throw new ConfigError("gotify token has an invalid value");
    return { type: "gotify", url: url.endsWith("/") ? url : `${url}/`, token, priority: c.priority };
  },
  summary: (c) => String(c.url ?? ""),
  apprise,
  limits,
  delivery: {
    request: (m, c) => ({
      url: `${c.url}message`,
      body: gotifyPayload(m, c.priority),
      headers: { "x-gotify-key": c.token },
    }),
  },
});
