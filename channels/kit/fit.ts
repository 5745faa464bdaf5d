/**
 * A message fitted to its platform, in the platform's own unit. Every payload builder cuts its texts and chooses its
 * links here, and every channel's checker (`channels/<type>/limits.ts`) measures its payload with the same measures,
 * so what is built to fit and what is checked are counted the same way:
 *
 * - `characters`: UTF-16 code units, what JavaScript's `length` counts. A platform counting code points or graphemes
 *   never counts more, so text within N of these is within N of theirs.
 * - `bytes`: UTF-8 bytes (ntfy's message).
 * - `characters after entities`: HTML with its tags left out and its entities read as the one character they stand for
 *   (Telegram counts a message after parsing it, so a link's destination does not count), in UTF-16 code units.
 * - `bytes of JSON`: the value serialized as JSON, in UTF-8 bytes (a Teams card, an ntfy body).
 * - `items`: a count (Slack's blocks, Discord's fields).
 *
 * Text is cut on a word (on a whole character where a word is too long), never inside an escape sequence or an entity
 * (the raw text is cut, then escaped); a list of links loses whole links, never part of one: a source whose link does not
 * fit is shown by its site ("example.com") instead, and only when even that does not fit is it left out.
 */
import type { HttpRequest } from "./delivery";

export type Unit = "characters" | "bytes" | "characters after entities" | "bytes of JSON" | "items";

/** One of a platform's limits: the most it takes of something, in its unit. */
export type Limit = { max: number; unit: Unit };

/** A limit a payload is over: which, where in the payload, and by how much. */
export type Violation = { limit: string; at: string; max: number; unit: Unit; actual: number };

/** How a text is marked up as the platform receives it (how its links and mentions are read). */
export type Markup = "mrkdwn" | "markdown" | "html" | "plain";

/** A text the reader sees, as sent. */
export type Rendered = { markup: Markup; text: string };

/** Where a limit applies in a payload, and the value there: `["section text", "blocks[1]", text]`. */
export type Measured = readonly [limit: string, at: string, value: unknown];

/**
 * A channel's limits, declared in its folder (`channels/<type>/limits.ts`, with `defineLimits`): the platform's numbers
 * as data, where each applies in a built request, and what the request shows a reader. The builder fits every limit by
 * construction; the server checks a request before sending it, and the shared property tests
 * (`tests/unit/channel-budgets.test.ts`) build every listed channel's request from hostile and oversized messages and
 * check it.
 */
export type Limits = {
  /** Each limit by name ("section text"), with its maximum and the unit the platform counts in. */
  max: Readonly<Record<string, Limit>>;
  /** Every place in `request` a limit applies, with the value there (each limit's name a key of `max`). */
  measure(request: HttpRequest): Measured[];
  /** What in `request` is over a limit: empty when it fits. */
  check(request: HttpRequest): Violation[];
  /** The texts of `request` a reader sees, each with its markup, in the order shown. */
  texts(request: HttpRequest): Rendered[];
  /** What would notify someone if it appeared in a text as sent (a mention this platform acts on). */
  mentions?: RegExp;
};

export const utf8Bytes = (text: string) => {
  let n = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
};

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** HTML as a reader sees it: tags left out, each entity the character it stands for. */
export const afterEntities = (html: string) =>
  html.replace(/<[^>]*>/g, "").replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (all, name: string) => {
    if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? all;
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });

export const jsonBytes = (value: unknown) => utf8Bytes(JSON.stringify(value) ?? "");

/** `value` measured in `unit`: a text for the text units, any value for `bytes of JSON`, an array or count for `items`. */
export function measure(value: unknown, unit: Unit): number {
  switch (unit) {
    case "characters":
      return String(value).length;
    case "bytes":
      return utf8Bytes(String(value));
    case "characters after entities":
      return afterEntities(String(value)).length;
    case "bytes of JSON":
      return jsonBytes(value);
    case "items":
      return Array.isArray(value) ? value.length : Number(value);
  }
}

/** A measure of text in `unit`, for fitting. */
export const within =
  (max: number, unit: Unit = "characters") =>
  (text: string) =>
    measure(text, unit) <= max;

/** The violations among `measured`: each value measured in its limit's unit against the limit's maximum. */
export function violations(limits: Readonly<Record<string, Limit>>, measured: readonly Measured[]): Violation[] {
  return measured.flatMap(([name, at, value]) => {
    const limit = limits[name];
    if (!limit) throw new Error(`no limit named ${name}`);
    const actual = measure(value, limit.unit);
    return actual > limit.max ? [{ limit: name, at, max: limit.max, unit: limit.unit, actual }] : [];
  });
}

/** A channel's limits, its checker derived from where they apply. */
export const defineLimits = (def: Omit<Limits, "check">): Limits => ({
  ...def,
  check: (request) => violations(def.max, def.measure(request)),
});

/** "section text at blocks[1]: 3,012 characters (at most 3,000)". */
export const describeViolation = (v: Violation) =>
  `${v.limit} at ${v.at}: ${v.actual.toLocaleString("en")} ${v.unit} (at most ${v.max.toLocaleString("en")})`;

const segmenter = typeof Intl !== "undefined" && "Segmenter" in Intl ? new Intl.Segmenter() : null;

/** The length of the longest prefix of `text` within `max` UTF-16 units that ends on a whole character (grapheme). */
function wholeCharacters(text: string, max: number): number {
  if (!segmenter) return /[\uD800-\uDBFF]/.test(text[max - 1] ?? "") ? max - 1 : max;
  let end = 0;
  for (const { index, segment } of segmenter.segment(text.slice(0, max + 32))) {
    if (index + segment.length > max) break;
    end = index + segment.length;
  }
  return end;
}

/**
 * At most `max` characters (UTF-16 code units) of `text`, "…" included when it is cut: cut after the last word that
 * fits, or after the last whole character when the last word started too early (a long URL, a language without spaces).
 */
export function cutOnWord(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < 1) return "";
  const cut = text.slice(0, wholeCharacters(text, max - 1));
  const space = cut.search(/\s\S*$/);
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * The longest start of `raw`, cut on a word, whose rendering fits: `render` escapes it (and may place it in the rest
 * of the message, so that `fits` measures the whole), `fits` says whether a rendering is within the limits. Returns the
 * rendering; the rendering of nothing when not even the first word fits.
 */
export function fit(raw: string, fits: (rendered: string) => boolean, render: (raw: string) => string = (s) => s) {
  const whole = render(raw);
  if (fits(whole)) return whole;
  let [lo, hi] = [1, raw.length - 1];
  let best: string | null = null;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const rendered = render(cutOnWord(raw, mid));
    if (fits(rendered)) [best, lo] = [rendered, mid + 1];
    else hi = mid - 1;
  }
  return best ?? render("");
}

/** `raw` escaped for its format within `max` (in `unit`): the common case of `fit`. */
export const fitText = (raw: string, max: number, escape: (raw: string) => string = (s) => s, unit?: Unit) =>
  fit(raw, within(max, unit), escape);

/** A source's site, as it is shown when its link does not fit: the host without `www.`. */
export function siteOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./i, "");
  } catch {
    return "";
  }
}

/** One entry of a list of links: its rendering as a link, and as text (its title and site) when the link does not fit. */
export type Item = { link?: string; text: string };

/**
 * The longest list of `items` that fits, joined by `join`: every item as its link while that fits, else the longest
 * links become their text one by one, and only when every item is text are items left out, from the end. Never a part
 * of a link.
 */
export function fitItems(
  items: readonly Item[],
  fits: (joined: string) => boolean,
  join: (parts: string[]) => string,
): string {
  const shown = items.map((i) => i.link ?? i.text);
  const asLink = items.map((i) => i.link !== undefined);
  for (let n = items.length; ;) {
    const joined = join(shown.slice(0, n));
    if (fits(joined) || n === 0) return joined;
    let longest = -1;
    for (let k = 0; k < n; k++)
      if (asLink[k] && (longest < 0 || shown[k]!.length > shown[longest]!.length)) longest = k;
    if (longest < 0) n--;
    else [shown[longest], asLink[longest]] = [items[longest]!.text, false];
  }
}
