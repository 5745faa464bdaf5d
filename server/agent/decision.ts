/** The agent's answer: what the model must return, and the rules the service enforces on it. */
import { z } from "zod";
import { env } from "../env";
import { isDomainName, siteName, withoutTracking, type Source } from "./sources";

const MAX_DELAY_MS = 30 * 24 * 60 * 60_000;
const DEFAULT_DELAY_MS = 24 * 60 * 60_000;
const MAX_STATE_BYTES = 16 * 1024;
/** Where older versions kept the last notified finding inside the agent's state (now a column of the watch). */
const LEGACY_LAST_NOTIFIED = "_last_notified_finding";

export const ModelDecision = z.object({
  condition_met: z.boolean(),
  answer: z.string().min(1),
  evidence: z.string().default(""),
  confidence: z.number().min(0).max(1),
  sources: z.array(z.object({ url: z.string(), title: z.string().default("") })).default([]),
  notify: z.boolean(),
  notification: z
    .object({ title: z.string().min(1), markdown: z.string() })
    .nullable()
    .default(null),
  finding_key: z.string().nullable().default(null),
  retracts_previous: z.boolean().default(false),
  next_run: z.string().nullable().default(null),
  next_run_reason: z.string().default(""),
  done: z.boolean().default(false),
  state: z.record(z.string(), z.unknown()).default({}),
});
export type ModelDecision = z.infer<typeof ModelDecision>;

/** The watch's own cadence bounds in minutes (null: the service's). */
export type Cadence = { min_interval_minutes: number | null; max_interval_minutes: number | null };

/** The earliest and latest next run the service accepts after `now`, as offsets in ms. */
export function cadenceWindow(cadence?: Cadence) {
  const min = Math.max(env.MIN_RUN_INTERVAL_MS, (cadence?.min_interval_minutes ?? 0) * 60_000);
  const max = Math.min(
    MAX_DELAY_MS,
    cadence?.max_interval_minutes ? cadence.max_interval_minutes * 60_000 : MAX_DELAY_MS,
  );
  return { min, max: Math.max(min, max) };
}

/**
 * The next run the service accepts: within [now + MIN_RUN_INTERVAL, now + 30 days], narrowed by the watch's cadence
 * bounds; a day (within the bounds) when the agent's answer is unreadable.
 */
export function clampNextRun(requested: Date | string | null | undefined, now: Date, cadence?: Cadence): Date {
  const at = requested ? new Date(requested) : null;
  const wanted = at && !Number.isNaN(at.getTime()) ? at.getTime() : now.getTime() + DEFAULT_DELAY_MS;
  const { min, max } = cadenceWindow(cadence);
  return new Date(Math.min(Math.max(wanted, now.getTime() + min), now.getTime() + max));
}

/** The JSON object in a model's final text (a ```json block, or the outermost braces). */
export function extractJson(text: string): unknown {
  const fenced = [...text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)].map((m) => m[1]!).reverse();
  const candidates = [...fenced, text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)];
  for (const c of candidates) {
    try {
      return JSON.parse(c.trim());
    } catch {
      // next candidate
    }
  }
  throw new Error("no JSON object found in the model's answer");
}

/** One entry per page (fragment and trailing slash aside); a real title wins over a bare domain name. */
function dedupeSources(sources: Source[]) {
  const seen = new Map<string, Source>();
  for (const s of sources) {
    if (!/^https?:\/\/[^/]/i.test(s.url) || !URL.canParse(s.url)) continue;
    const url = withoutTracking(s.url);
    const title = s.title.trim() === s.url ? "" : s.title.trim();
    const key = url.replace(/#.*$/, "").replace(/\/$/, "");
    const known = seen.get(key);
    if (!known) seen.set(key, { url, title: title || siteName(url) });
    else if (title && !isDomainName(title) && isDomainName(known.title)) known.title = title;
  }
  return [...seen.values()];
}

/** What the service keeps of the model's state: its object, within 16 KB. */
function nextState(modelState: Record<string, unknown>) {
  const state = { ...modelState };
  delete state[LEGACY_LAST_NOTIFIED];
  if (JSON.stringify(state).length <= MAX_STATE_BYTES) return state;
  return { truncated: true, summary: JSON.stringify(state).slice(0, MAX_STATE_BYTES / 2) };
}

/**
 * The decision in the service's terms: the met finding (its key names it across runs; `notify` when the agent wants
 * the user told; whether it is new and clears the watch's bounds is decided when the run is recorded), whether it
 * retracts the last notified finding, sources deduplicated, next_run clamped into the cadence bounds, state bounded.
 */
export function finalizeDecision(d: ModelDecision, ctx: { now: Date; cadence?: Cadence }) {
  const key = d.finding_key?.trim() || (d.notification ? d.notification.title.trim().toLowerCase() : null);
  const finding =
    d.condition_met && key
      ? {
          key,
          notify: d.notify,
          notification: d.notification ?? { title: d.answer.split("\n")[0]!.slice(0, 120), markdown: d.answer },
        }
      : null;
  return {
    condition_met: d.condition_met,
    answer: d.answer,
    evidence: d.evidence,
    confidence: d.confidence,
    sources: dedupeSources(d.sources),
    finding,
    retracts_previous: d.retracts_previous,
    next_run: clampNextRun(d.next_run, ctx.now, ctx.cadence),
    next_run_reason: d.next_run_reason,
    done: d.done,
    last_known_state: nextState(d.state),
  };
}
