"use client";
/**
 * Dates on pages: `<Time>` shows a time relative to now ("3 hours ago") or a day ("2 Nov 2026"), with the absolute
 * date and time in the reader's time zone as its title. The zone is the signed-in user's setting (UTC for visitors),
 * provided once by the root layout. The server and the browser format the same instant a few seconds apart, so
 * the text may differ by a unit at hydration: that is expected, not an error.
 */
import { createContext, useContext, type ReactNode } from "react";
import { formatDate, formatDateTime, formatRelative } from "@/server/render/dates";

const TimeZoneContext = createContext("UTC");

export function TimeZoneProvider({ zone, children }: { zone: string; children: ReactNode }) {
  return <TimeZoneContext value={zone}>{children}</TimeZoneContext>;
}

export const useTimeZone = () => useContext(TimeZoneContext);

/** "14:05 CET" today in `zone`, "00:10 CET tomorrow", else with the date. */
function clock(iso: string, zone: string) {
  const full = formatDateTime(iso, zone);
  const time = full.slice(full.indexOf(", ") + 2);
  const day = formatDate(iso, zone);
  if (day === formatDate(new Date(), zone)) return time;
  return day === formatDate(new Date(Date.now() + 86_400_000), zone) ? `${time} tomorrow` : full;
}

export function Time({
  iso,
  format = "relative",
  empty = "—",
}: {
  iso: string | null | undefined;
  /** relative: "3 hours ago"; date: "2 Nov 2026"; datetime: "2 Nov 2026, 14:05 CET"; clock: "14:05 CET" today. */
  format?: "relative" | "date" | "datetime" | "clock";
  /** What stands in for no date. */
  empty?: string;
}) {
  const zone = useTimeZone();
  if (!iso) return <span>{empty}</span>;
  const text =
    format === "relative"
      ? formatRelative(iso)
      : format === "date"
        ? formatDate(iso, zone)
        : format === "clock"
          ? clock(iso, zone)
          : formatDateTime(iso, zone);
  return (
    <time dateTime={iso} title={formatDateTime(iso, zone)} suppressHydrationWarning>
      {text}
    </time>
  );
}
