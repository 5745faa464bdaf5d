/**
 * The one way a date becomes text, on every surface: pages (server and browser), the badge, the Open Graph image.
 * Pages show a time relative to now with the absolute date and time in the reader's time zone beside it (the `<Time>`
 * component); the badge and the image, cached for everyone, say the day in UTC. Pure `Intl`, no server state, so the
 * browser's components import it too.
 */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const formats = new Map<string, Intl.DateTimeFormat>();

/** The date's fields in `timeZone`, as numbers (month names come from MONTHS: the same words in every runtime). */
function fields(iso: string | Date, timeZone: string) {
  let format = formats.get(timeZone);
  if (!format) {
    const options: Intl.DateTimeFormatOptions = {
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      hourCycle: "h23",
      timeZoneName: "short",
    };
    try {
      format = new Intl.DateTimeFormat("en-US", { ...options, timeZone });
    } catch {
      // A zone this runtime does not know (settings take only zones the server knows; a browser may know fewer).
      format = new Intl.DateTimeFormat("en-US", { ...options, timeZone: "UTC" });
    }
    formats.set(timeZone, format);
  }
  const parts = format.formatToParts(new Date(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  return {
    day: Number(part("day")),
    month: MONTHS[Number(part("month")) - 1],
    year: part("year"),
    time: `${part("hour").padStart(2, "0")}:${part("minute")}`,
    zone: part("timeZoneName"),
  };
}

/** "2 Nov 2026": the day in `timeZone` (UTC unless said). */
export function formatDate(iso: string | Date, timeZone = "UTC"): string {
  const f = fields(iso, timeZone);
  return `${f.day} ${f.month} ${f.year}`;
}

/** "2 Nov 2026, 14:05 EST": day, 24-hour time and the zone's short name. */
export function formatDateTime(iso: string | Date, timeZone = "UTC"): string {
  const f = fields(iso, timeZone);
  return `${f.day} ${f.month} ${f.year}, ${f.time} ${f.zone}`;
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400_000],
  ["month", 30 * 86_400_000],
  ["week", 7 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];
const relativeFormat = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "in 3 hours", "5 minutes ago", "yesterday", "just now". */
export function formatRelative(iso: string | Date, now = Date.now()): string {
  const diff = new Date(iso).getTime() - now;
  for (const [unit, ms] of UNITS) if (Math.abs(diff) >= ms) return relativeFormat.format(Math.round(diff / ms), unit);
  return diff >= 0 ? "in under a minute" : "just now";
}

/** "0:07", "12:40", "1:02:03": how long something has been going. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const pad = (n: number) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
}

/** "1 fork", "2 forks": a count and its noun, singular or plural. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
