/** Matrix's limit: an event of 65,536 bytes of JSON, its envelope included (the content keeps 4,096 bytes for it). */
import { defineLimits } from "../kit/fit";
import { CONTENT_MAX_BYTES } from "./payload";

type Content = { body: string; formatted_body: string };

export const limits = defineLimits({
  max: { "event content": { max: CONTENT_MAX_BYTES, unit: "bytes of JSON" } },
  measure: (request) => [["event content", "content", request.body]],
  texts: (request) => {
    const c = request.body as Content;
    return [
      { markup: "html", text: c.formatted_body },
      { markup: "plain", text: c.body },
    ];
  },
  // The room (legacy push rules read the body for "@room") or a user's id.
  mentions: /@(room\b|[a-z0-9._=/-]+:[a-z0-9.-]+)/i,
});
