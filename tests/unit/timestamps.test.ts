/** Stored timestamps read into Dates (server/db/timestamps.ts): the same instant pg's own parser reads, faster. */
import fc from "fast-check";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { parseTimestamp, TIMESTAMPTZ } from "@/server/db/timestamps";

const pgParser = pg.types.getTypeParser(TIMESTAMPTZ, "text") as (s: string) => Date | number;
/** How they were read before: a column by pg's parser, a date inside JSON by Date. */
const reference = (s: string) => (s[10] === "T" ? new Date(s) : pgParser(s));
const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** A timestamp as PostgreSQL writes it: `timestamptz` text (a space) or `to_json` (a `T`, the offset with minutes). */
const written = fc
  .record({
    at: fc.date({ min: new Date("1000-01-02T00:00:00Z"), max: new Date("9999-12-30T00:00:00Z"), noInvalidDate: true }),
    micros: fc.integer({ min: 0, max: 999_999 }),
    places: fc.integer({ min: 0, max: 6 }),
    offsetMinutes: fc.integer({ min: -14 * 60, max: 14 * 60 }),
    json: fc.boolean(),
  })
  .map(({ at, micros, places, offsetMinutes, json }) => {
    const local = new Date(at.getTime() + offsetMinutes * 60_000);
    const fraction = places ? `.${pad(micros, 6).slice(0, places)}` : "";
    const sign = offsetMinutes < 0 ? "-" : "+";
    const abs = Math.abs(offsetMinutes);
    const offset =
      json || abs % 60 ? `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}` : `${sign}${pad(abs / 60)}`;
    return (
      `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
      `${json ? "T" : " "}${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
      `${fraction}${offset}`
    );
  });

describe("stored timestamps", () => {
  it("read as the instant pg's own parser reads, in both of PostgreSQL's forms and any offset", () => {
    fc.assert(
      fc.property(written, (s) => {
        const read = parseTimestamp(s);
        expect(read).toBeInstanceOf(Date);
        expect(read.getTime()).toBe((reference(s) as Date).getTime());
      }),
      { numRuns: 5000 },
    );
  });

  it("leave what the fast path does not read to the parsers before it", () => {
    for (const s of [
      "infinity",
      "-infinity",
      "0099-03-04 05:06:07+00",
      "2026-03-04 05:06:07.5+05:30:15",
      "2026-03-04 05:06:07 BC",
      "12026-03-04 05:06:07+00",
      "2026-03-04 05:06:07",
      "2026-03-04T05:06:07Z",
      "2026-03-04T05:06:07.123456+01:00:30",
    ])
      expect(parseTimestamp(s)).toEqual(reference(s));
  });

  it("examples", () => {
    expect(parseTimestamp("2026-11-29 09:06:12.123+00").toISOString()).toBe("2026-11-29T09:06:12.123Z");
    expect(parseTimestamp("2026-11-29T09:06:12.1239+05:30").toISOString()).toBe("2026-11-29T03:36:12.123Z");
    expect(parseTimestamp("2026-11-29 09:06:12-08").toISOString()).toBe("2026-11-29T17:06:12.000Z");
  });
});
