/**
 * ntfy's limits (docs/publish.md and server.go): "Each message can be up to 4,096 bytes long. Longer messages are
 * treated as attachments", and a JSON publish is read up to twice that (8,192 bytes with the default
 * `message-size-limit`); a topic is 1 to 64 letters, digits, `_` and `-`. ntfy documents no bound on the title or the
 * click URL: Watch keeps the title within 200 characters (Apprise's bound) and the click URL within 2,048.
 */
import { defineLimits } from "../kit/fit";

type Body = { topic: string; title: string; message: string; click: string };

export const NTFY = defineLimits({
  max: {
    message: { max: 4096, unit: "bytes" },
    body: { max: 8192, unit: "bytes of JSON" },
    topic: { max: 64, unit: "characters" },
    title: { max: 200, unit: "characters" },
    click: { max: 2048, unit: "characters" },
  },
  measure({ body }) {
    const b = body as Body;
    return [
      ["message", "message", b.message],
      ["body", "the request body", body],
      ["topic", "topic", b.topic],
      ["title", "title", b.title],
      ["click", "click", b.click],
    ];
  },
  texts: ({ body }) => [
    { markup: "plain", text: (body as Body).title },
    { markup: "markdown", text: (body as Body).message },
  ],
});
