/** Mattermost's limit: a post of 16,383 characters (its default; servers before 5.0 took 4,000). */
import { defineLimits } from "../kit/fit";
import { POST_MAX } from "./payload";

const text = (body: unknown) => String((body as { text?: unknown }).text ?? "");

export const limits = defineLimits({
  max: { post: { max: POST_MAX, unit: "characters" } },
  measure: (request) => [["post", "text", text(request.body)]],
  texts: (request) => [{ markup: "markdown", text: text(request.body) }],
  mentions: /@(channel|all|here)\b/i,
});
