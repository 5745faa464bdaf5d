/**
 * Local time for a user's email settings: quiet hours in their IANA time zone, and the daily digest's
 * hour. Pure functions over instants; time zones come from the runtime's Intl (the IANA database), DST included.
 */

/** "HH:MM" as minutes after midnight. */
export const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

type LocalParts = { year: number; month: number; day: number; minutes: number };

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string) {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock date and time of `at` in `zone`. */
export function localParts(at: Date, zone: string): LocalParts & { seconds: number } {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
    seconds: Number(parts.second),
  };
}

/** `zone`'s offset from UTC at `at`, in ms (positive east of Greenwich). */
function offsetAt(at: Date, zone: string) {
  const p = localParts(at, zone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, Math.floor(p.minutes / 60), p.minutes % 60, p.seconds);
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The instant when the wall clock in `zone` first shows `minutes` on the given local date. A time that does not
 * exist that day (skipped by a DST change) moves forward by the gap, as Temporal's "compatible" disambiguation does.
 */
export function zonedInstant(local: Omit<LocalParts, "minutes">, minutes: number, zone: string): Date {
  const wall = Date.UTC(local.year, local.month - 1, local.day, Math.floor(minutes / 60), minutes % 60);
  // The offset can differ on either side of a DST change: try both, keep the earliest that shows that wall time.
  const candidates = [
    wall - offsetAt(new Date(wall - 86_400_000 / 2), zone),
    wall - offsetAt(new Date(wall + 86_400_000 / 2), zone),
  ];
  const exact = candidates.filter((t) => localParts(new Date(t), zone).minutes === minutes).sort((a, b) => a - b)[0];
  return new Date(exact ?? Math.max(...candidates));
}

export type QuietHours = { start: string; end: string };

/** Whether `at` falls in the quiet window [start, end) of local time (which may span midnight). */
export function inQuietHours(at: Date, zone: string, quiet: QuietHours) {
  const now = localParts(at, zone).minutes;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  return start < end ? now >= start && now < end : now >= start || now < end;
}

/** The next instant at or after `at` when the wall clock in `zone` shows `minutes` (the end of quiet hours, 08:00). */
export function nextLocalTime(at: Date, zone: string, minutes: number): Date {
  const today = localParts(at, zone);
  for (let days = 0; days < 3; days++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + days));
    const candidate = zonedInstant(
      { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() },
      minutes,
      zone,
    );
    if (candidate.getTime() >= at.getTime()) return candidate;
  }
  throw new Error(`no ${minutes} minutes local time in ${zone} within 3 days`);
}

/** When an email due at `at` may go: now, or when the quiet hours it falls in end. */
export function quietUntil(at: Date, zone: string, quiet: QuietHours | null): Date | null {
  if (!quiet || !inQuietHours(at, zone, quiet)) return null;
  return nextLocalTime(at, zone, minutesOf(quiet.end));
}
