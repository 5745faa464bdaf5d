/**
 * Timestamps as PostgreSQL writes them (`timestamptz` columns, and `to_json` of them), read into Dates without the
 * detours of the defaults: pg's parser (postgres-date) matches each with three regular expressions, and under
 * `npm start` Next.js replaces the global `Date` with a wrapper that builds each one through `Reflect.construct`
 * (it watches prerenders for reads of the clock; a stored timestamp is not one). A list of 50 watches reads about
 * 650 of them, and the two detours were 4 % of its CPU (docs/benchmarks.md).
 */
import pg from "pg";

/** PostgreSQL's type id of `timestamptz`. */
export const TIMESTAMPTZ = 1184;
const pgParser = pg.types.getTypeParser(TIMESTAMPTZ, "text") as (s: string) => Date;
/** What the fast path does not read: JSON's ISO form as Date reads it, a column's text as pg's own parser does. */
const parseDate = (s: string) => (s.charCodeAt(10) === 84 ? new Date(s) : pgParser(s));

/** The runtime's own Date, kept by `scripts/start.mjs` before Next.js wraps it; elsewhere the global is that one. */
const NativeDate: DateConstructor =
  (globalThis as { [k: symbol]: DateConstructor | undefined })[Symbol.for("watch.nativeDate")] ?? Date;

const digits = (s: string, from: number, to: number) => {
  let v = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  return v;
};

/**
 * `2026-11-29 09:06:12.123+00` or `2026-11-29T09:06:12.123456+05:30`: a four-digit year from 1000, a date, a time
 * with an optional fraction, and an offset. Anything else (BC, infinity, a year past 9999, a time without offset) is
 * read by pg's own parser.
 */
export function parseTimestamp(s: string): Date {
  const sep = s.charCodeAt(10);
  const year = digits(s, 0, 4);
  if (s.length < 22 || (sep !== 32 && sep !== 84) || s[4] !== "-" || s[7] !== "-" || !(year >= 1000))
    return parseDate(s);
  let i = 19;
  let ms = 0;
  if (s.charCodeAt(i) === 46) {
    let places = 0;
    for (i++; i < s.length; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      if (places++ < 3) ms = ms * 10 + d;
    }
    for (; places < 3; places++) ms *= 10;
  }
  const sign = s[i] === "+" ? 1 : s[i] === "-" ? -1 : 0;
  const rest = s.length - i;
  const offset =
    rest === 3
      ? digits(s, i + 1, i + 3) * 60
      : rest === 6 && s[i + 3] === ":"
        ? digits(s, i + 1, i + 3) * 60 + digits(s, i + 4, i + 6)
        : NaN;
  const time = Date.UTC(
    year,
    digits(s, 5, 7) - 1,
    digits(s, 8, 10),
    digits(s, 11, 13),
    digits(s, 14, 16),
    digits(s, 17, 19),
    ms,
  );
  if (!sign || s[13] !== ":" || s[16] !== ":" || Number.isNaN(time + offset)) return parseDate(s);
  return new NativeDate(time - sign * offset * 60_000);
}

/** pg's parsers, `timestamptz` read by `parseTimestamp`: a pool's or client's `types` option. */
export const timestampTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMPTZ && format !== "binary"
      ? parseTimestamp
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};
