/**
 * An Apprise API relay: a self-hosted Apprise API (github.com/caronc/apprise-api) that passes each notice on to every
 * service configured under its key, the 100+ services Apprise knows. The key is the URL's secret part.
 */
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";
import { readAnswer, type HttpAnswer } from "../kit/delivery";
import { checkUrl } from "../kit/urls";
import { apprise as appriseUrls, KEY } from "./apprise";
import { limits } from "./limits";
import { apprisePayload } from "./payload";

/**
 * The API's answers: 200 when every service took it; 204 when the key has no configuration (nothing was sent: tried
 * again, in case it is added); 424 when one or more services failed (or no service matched the tags): failed, and not
 * tried again, since the others have it already. Its answer bodies are logs of the services behind it: not kept.
 */
function read(answer: HttpAnswer) {
  if (answer.status === 204)
    return {
      status: "failed" as const,
      error: "HTTP 204: the Apprise API has no configuration for this key",
      permanent: false,
    };
  if (answer.status === 424)
    return {
      status: "failed" as const,
      error: "HTTP 424: the Apprise API could not notify one or more of its services (or none matched the tags)",
      permanent: true,
    };
  const outcome = readAnswer({ ...answer, body: "" });
  return outcome;
}

export const apprise = defineChannel({
  type: "apprise",
  label: "Apprise API",
  help: "Your own Apprise API server (github.com/caronc/apprise-api) passes each message on to every service configured under a key: its URL is https://your-server/notify/<key>. Tags (optional) pick some of them: a comma means any of them, a space all of them. The URL is a secret: it is never shown again in full.",
  api: { id: "AppriseNotification", description: "Apprise API relay (a self-hosted Apprise API's /notify/{key})" },
  fields: {
    url: field(text(), {
      label: "Notify URL",
      kind: "url",
      placeholder: "https://apprise.example.com/notify/my-key",
      secret: "write-only",
      description: "The API's /notify/{key} URL (write-only: reads show it redacted)",
    }),
    tags: field(text().optional(), {
      label: "Tags",
      kind: "text",
      placeholder: "alerts, phone (optional)",
      description: "Only the services with these tags: `a, b` is either, `a b` both",
    }),
  },
  example: { url: "https://apprise.example.com/notify/watch-example-key", tags: "alerts" },
  check(c, context) {
    const url = checkUrl("apprise url", c.url.trim(), context);
    const key = /\/notify\/([^/?#]+)\/?$/.exec(new URL(url).pathname)?.[1];
    if (!key || !KEY.test(key) || new URL(url).search)
      throw new ConfigError("apprise url must be an Apprise API's notify URL: https://host/notify/<key>");
    const tags = c.tags?.trim();
    if (tags !== undefined && tags.length > 500) throw new ConfigError("apprise tags must be at most 500 characters");
    return { type: "apprise", url, ...(tags ? { tags } : {}) };
  },
  summary: (c) => `${String(c.url ?? "")}${c.tags ? ` (tags ${String(c.tags)})` : ""}`,
  apprise: appriseUrls,
  limits,
  delivery: { request: (m, c) => ({ url: c.url, body: apprisePayload(m, c.tags) }), read },
});
