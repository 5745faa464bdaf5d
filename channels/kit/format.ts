/** Text fitted to a platform's limits, and links that stay one link in every format. */

/** "87%" */
export const percent = (confidence: number) => `${Math.round(confidence * 100)}%`;

/** At most `max` characters (UTF-16 code units), cut on a word (or mid-word when there is none near) with "…". */
export function cutOnWord(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const space = cut.search(/\s\S*$/);
  if (space > max * 0.6) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

/**
 * `escape(text)` within `max` characters: escaping may lengthen the text (`&` is `&amp;`), so the raw text is cut
 * until its escaped form fits, never in the middle of an escape.
 */
export function fitEscaped(text: string, max: number, escape: (raw: string) => string): string {
  const whole = escape(text);
  if (whole.length <= max) return whole;
  let [lo, hi] = [0, Math.min(text.length, max)];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (escape(cutOnWord(text, mid)).length <= max) lo = mid;
    else hi = mid - 1;
  }
  return escape(cutOnWord(text, Math.max(lo, 1))).slice(0, max);
}

/**
 * A link destination that cannot end its link early or start another in any format: `(`, `)`, `[`, `]`, `<`, `>`, `"`
 * and whitespace percent-encoded (a source URL with `)` in it would otherwise close a markdown link and let the rest of
 * the URL add a link of its own; a `"` would close an HTML attribute). Browsers read the encoded URL as the same address.
 */
export const linkTarget = (url: string) =>
  url.replace(/[()[\]<>"\s]/gu, (ch) => (ch === "(" ? "%28" : ch === ")" ? "%29" : encodeURIComponent(ch)));
