/**
 * ntfy (phone push): a JSON publish to the server's root, with an access token when the topic is protected. The topic
 * URL is a secret too: on a public server such as ntfy.sh, whoever knows the topic reads every message.
 */
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";
import { checkUrl } from "../kit/urls";
import { apprise, CLOUD } from "./apprise";
import { ntfyPayload, topicOf } from "./payload";

export const ntfy = defineChannel({
  type: "ntfy",
  label: "ntfy (phone push)",
  help: "Install the ntfy app (ntfy.sh) and subscribe to a topic whose name is hard to guess; the URL is the server and that topic (https://ntfy.sh/your-topic). Whoever knows the topic reads its messages, so the URL is a secret: it is never shown again in full. A protected topic on your own server needs an access token (tk_…), also never shown again in full.",
  api: { id: "NtfyNotification", description: "ntfy channel (phone push, JSON publish)" },
  fields: {
    url: field(text(), {
      label: "Topic URL",
      kind: "url",
      placeholder: `${CLOUD}/my-secret-topic`,
      secret: "write-only",
      description: "Server and topic, e.g. https://ntfy.sh/my-topic (write-only: reads show it redacted)",
    }),
    token: field(text().optional(), {
      label: "Access token",
      kind: "text",
      placeholder: "tk_… (optional)",
      secret: "write-only",
      description: "Access token (tk_…) of a protected topic (write-only)",
    }),
  },
  example: { url: `${CLOUD}/watch-example-topic`, token: "tk_exampleexampleexample" },
  check(c, context) {
    const url = checkUrl("ntfy url", c.url.trim(), context);
    const { topic } = topicOf(url);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(topic))
      throw new ConfigError("ntfy url must end in a topic (letters, digits, - and _)");
    const token = c.token?.trim();
    if (token !== undefined && !/^[\x21-\x7e]{1,200}$/.test(token))
      throw new ConfigError("ntfy token has an invalid value");
    return { type: "ntfy", url, ...(token ? { token } : {}) };
  },
  summary: (c) => String(c.url ?? ""),
  apprise,
  delivery: {
    request(m, c) {
      const { server, topic } = topicOf(c.url);
      return {
        url: server,
        body: ntfyPayload(m, topic),
        headers: c.token ? { authorization: `Bearer ${c.token}` } : undefined,
      };
    },
  },
});
