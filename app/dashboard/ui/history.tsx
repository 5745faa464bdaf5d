/** A watch's definition history in words: "Made public", "Name: “A” → “B”", "Channels: Email → Email, Slack". */
import { channelOf } from "@/channels";
import { Time } from "../../ui/time";
import { interval } from "./format";

type Change = { from: unknown; to: unknown };
export type HistoryEntry = { at: string; changes: Record<string, Change> };

const LABELS: Record<string, string> = {
  name: "Name",
  search_query: "Search",
  condition_description: "Tell me when",
  min_confidence: "Confidence needed",
  min_sources: "Independent sites needed",
  min_interval_minutes: "Checks as often as every",
  max_interval_minutes: "Checks at least once every",
};

/** Long texts are quoted up to here; the watch page shows them whole. */
const QUOTE = 80;
const quote = (v: unknown) => {
  const s = String(v ?? "").replace(/\s+/g, " ");
  return `“${s.length > QUOTE ? `${s.slice(0, QUOTE - 1)}…` : s}”`;
};

function value(field: string, v: unknown): string {
  if (v === null || v === undefined) return "none";
  switch (field) {
    case "min_confidence":
      return Number(v) ? `${Math.round(Number(v) * 100)}%` : "any";
    case "min_sources":
      return Number(v) === 1 ? "1 (any source)" : String(v);
    case "min_interval_minutes":
    case "max_interval_minutes":
      return interval(Number(v));
    case "notifications": {
      const types = Array.isArray(v) ? v.map((n: { type?: string }) => channelOf(n.type ?? "")?.label ?? n.type) : [];
      return types.length ? types.join(", ") : "none";
    }
    default:
      return quote(v);
  }
}

const STATE_WORDS: Record<string, string> = { paused: "Paused", active: "Resumed", completed: "Completed" };

/** One change as a phrase. */
export function describeChange(field: string, c: Change): string {
  if (field === "is_public") return c.to ? "Made public" : "Made private";
  if (field === "state")
    return c.from === "completed" && c.to === "active" ? "Reactivated" : (STATE_WORDS[String(c.to)] ?? String(c.to));
  if (field === "notifications") return `Channels: ${value(field, c.from)} → ${value(field, c.to)}`;
  return `${LABELS[field] ?? field}: ${value(field, c.from)} → ${value(field, c.to)}`;
}

export function DefinitionHistory({ entries }: { entries: HistoryEntry[] }) {
  if (!entries.length) return <p className="muted">Unchanged since it was created.</p>;
  return (
    <ul className="changes">
      {entries.map((h) => (
        <li key={h.at}>
          <span className="muted small">
            <Time iso={h.at} />
          </span>{" "}
          {Object.entries(h.changes)
            .map(([field, c]) => describeChange(field, c))
            .join("; ")}
        </li>
      ))}
    </ul>
  );
}
