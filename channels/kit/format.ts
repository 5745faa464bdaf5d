/** What every format shares: a confidence in words, and link destinations that stay one link in every format. */

/** "87%" */
export const percent = (confidence: number) => `${Math.round(confidence * 100)}%`;

/**
 * A link destination that cannot end its link early or start another in any format: `(`, `)`, `[`, `]`, `<`, `>`, `"`
 * and whitespace percent-encoded (a source URL with `)` in it would otherwise close a markdown link and let the rest of
 * the URL add a link of its own; a `"` would close an HTML attribute). Browsers read the encoded URL as the same address.
 */
export const linkTarget = (url: string) =>
  url.replace(/[()[\]<>"\s]/gu, (ch) => (ch === "(" ? "%28" : ch === ")" ? "%29" : encodeURIComponent(ch)));
