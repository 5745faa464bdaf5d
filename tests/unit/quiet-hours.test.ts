/** Local time for email settings: quiet windows across midnight and DST changes, the next local hour, zone names. */
import { describe, expect, it } from "vitest";
import {
  inQuietHours,
  isTimeZone,
  localParts,
  nextLocalTime,
  quietUntil,
  zonedInstant,
} from "@/server/users/quiet-hours";

const at = (iso: string) => new Date(iso);

describe("quiet hours", () => {
  const night = { start: "22:00", end: "07:00" };
  it.each([
    ["2026-11-23T21:59:00Z", "UTC", false],
    ["2026-11-23T22:00:00Z", "UTC", true],
    ["2026-11-24T03:00:00Z", "UTC", true],
    ["2026-11-24T06:59:00Z", "UTC", true],
    ["2026-11-24T07:00:00Z", "UTC", false],
    // 23:30 in Berlin (UTC+1 in November) is 22:30 UTC
    ["2026-11-23T22:30:00Z", "Europe/Berlin", true],
    ["2026-11-23T20:30:00Z", "Europe/Berlin", false],
  ])("%s in %s: %s", (iso, zone, quiet) => {
    expect(inQuietHours(at(iso), zone, night)).toBe(quiet);
  });

  it("a window within one day", () => {
    expect(inQuietHours(at("2026-11-23T13:00:00Z"), "UTC", { start: "12:00", end: "14:00" })).toBe(true);
    expect(inQuietHours(at("2026-11-23T14:00:00Z"), "UTC", { start: "12:00", end: "14:00" })).toBe(false);
  });

  it("holds an email until the window ends, in local time, the next morning when it spans midnight", () => {
    expect(quietUntil(at("2026-11-23T23:15:00Z"), "UTC", night)).toEqual(at("2026-11-24T07:00:00Z"));
    expect(quietUntil(at("2026-11-24T02:00:00Z"), "UTC", night)).toEqual(at("2026-11-24T07:00:00Z"));
    expect(quietUntil(at("2026-11-24T12:00:00Z"), "UTC", night)).toBeNull();
    expect(quietUntil(at("2026-11-24T02:00:00Z"), "UTC", null)).toBeNull();
    // New York, UTC-5 in November: 23:00 local is 04:00 UTC; 07:00 local is 12:00 UTC.
    expect(quietUntil(at("2026-11-24T04:00:00Z"), "America/New_York", night)).toEqual(at("2026-11-24T12:00:00Z"));
  });

  it("follows DST changes: the window ends at 07:00 local on either side of the change", () => {
    // Berlin springs forward on 2026-03-29 (UTC+1 → UTC+2): 07:00 local is 05:00 UTC.
    expect(quietUntil(at("2026-03-28T23:30:00Z"), "Europe/Berlin", night)).toEqual(at("2026-03-29T05:00:00Z"));
    // and falls back on 2026-10-25 (UTC+2 → UTC+1): 07:00 local is 06:00 UTC.
    expect(quietUntil(at("2026-10-24T22:30:00Z"), "Europe/Berlin", night)).toEqual(at("2026-10-25T06:00:00Z"));
    // New York springs forward on 2026-03-08: 07:00 EDT is 11:00 UTC.
    expect(quietUntil(at("2026-03-08T05:00:00Z"), "America/New_York", night)).toEqual(at("2026-03-08T11:00:00Z"));
  });

  it("a local time skipped by DST moves forward by the gap; a repeated one is its first occurrence", () => {
    // 02:30 does not exist in Berlin on 2026-03-29: it becomes 03:30 CEST = 01:30 UTC.
    expect(zonedInstant({ year: 2026, month: 3, day: 29 }, 150, "Europe/Berlin")).toEqual(at("2026-03-29T01:30:00Z"));
    // 02:30 happens twice on 2026-10-25: first at 00:30 UTC (CEST).
    expect(zonedInstant({ year: 2026, month: 10, day: 25 }, 150, "Europe/Berlin")).toEqual(at("2026-10-25T00:30:00Z"));
  });

  it("finds the next 08:00 local for the digest, today or tomorrow", () => {
    expect(nextLocalTime(at("2026-11-23T06:00:00Z"), "UTC", 480)).toEqual(at("2026-11-23T08:00:00Z"));
    expect(nextLocalTime(at("2026-11-23T08:00:01Z"), "UTC", 480)).toEqual(at("2026-11-24T08:00:00Z"));
    expect(nextLocalTime(at("2026-11-23T10:00:00Z"), "Asia/Tokyo", 480)).toEqual(at("2026-11-23T23:00:00Z"));
    expect(localParts(at("2026-11-23T23:00:00Z"), "Asia/Tokyo")).toMatchObject({ day: 24, minutes: 480 });
  });

  it("knows IANA zones", () => {
    for (const zone of ["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Asia/Kolkata"])
      expect(isTimeZone(zone)).toBe(true);
    for (const zone of ["Mars/Olympus", "", "+05:00x", "Europe/"]) expect(isTimeZone(zone)).toBe(false);
  });
});
