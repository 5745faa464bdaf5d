/** Display helpers shared by the dashboard's server and client components. */
import type { TaskView } from "@/server/tasks/schemas";

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];
const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "in 3 hours", "5 minutes ago", "now"; "—" for no time. */
export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "—";
  const diff = new Date(iso).getTime() - now;
  for (const [unit, ms] of units) if (Math.abs(diff) >= ms) return rtf.format(Math.round(diff / ms), unit);
  return diff >= 0 ? "in under a minute" : "just now";
}

export const absolute = (iso: string | null | undefined) =>
  iso ? new Date(iso).toUTCString().replace(" GMT", " UTC") : "";

export type Outcome = "met" | "not met" | "failed" | "running" | "never run";

export function outcomeOf(last: TaskView["last_execution"]): Outcome {
  if (!last) return "never run";
  if (last.status === "pending" || last.status === "running") return "running";
  if (last.status === "failed" || last.status === "cancelled") return "failed";
  return last.result?.condition_met ? "met" : "not met";
}

export function duration(started: string, completed: string | null): string {
  if (!completed) return "—";
  const ms = new Date(completed).getTime() - new Date(started).getTime();
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
