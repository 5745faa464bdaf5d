/**
 * A Teams Workflows webhook takes a message of at most 28 KB ("The message size limit is 28 KB", Microsoft's incoming
 * webhook documentation): counted here as 28,000 bytes of the JSON sent, the smaller reading of "KB". No limit of a
 * card's single texts is documented.
 */
import { defineLimits, type Rendered } from "../kit/fit";

type Body = { attachments: { content: { body: { type: string; text?: string }[] } }[] };

export const TEAMS = defineLimits({
  max: { message: { max: 28_000, unit: "bytes of JSON" } },
  measure: ({ body }) => [["message", "the request body", body]],
  texts: ({ body }) =>
    (body as Body).attachments.flatMap((a) =>
      a.content.body.flatMap((b): Rendered[] =>
        b.type === "TextBlock" ? [{ markup: "markdown", text: b.text ?? "" }] : [],
      ),
    ),
  // <at>…</at> with a mention entity is how a card mentions someone.
  mentions: /<at\b/i,
});
