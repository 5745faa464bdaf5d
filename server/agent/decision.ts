/** The agent's answer: what the model must return, and the rules the service enforces on it. */
import { z } from "zod";
import { env } from "../env";
import { isDomainName, siteName, withoutTracking, type Source } from "./sources";

const MAX_DELAY_MS = 30 * 24 * 60 * 60_000;
const DEFAULT_DELAY_MS = 24 * 60 * 60_000;
const MAX_STATE_BYTES = 16 * 1024;
/** Kept inside last_known_state: the finding the owner was last notified about. */
export const LAST_NOTIFIED = "_last_notified_finding";

export const ModelDecision = z.object({
  condition_met: z.boolean(),
  answer: z.string().min(1),
  evidence: z.string().default(""),
  confidence: z.number().min(0).max(1),
  sources: z.array(z.object({ url: z.string(), title: z.string().default("") })).default([]),
  notify: z.boolean(),
  notification: z.object({ title: z.string().min(1), markdown: z.string() }).nullable().default(null),
  finding_key: z.string().nullable().default(null),
  next_run: z.string().nullable().default(null),
  next_run_reason: z.string().default(""),
  done: z.boolean().default(false),
  state: z.record(z.string(), z.unknown()).default({}),
});
export type ModelDecision = z.infer<typeof ModelDecision>;

/** The next run the service accepts: within [now + MIN_RUN_INTERVAL, now + 30 days]; a day when unreadable. */
export function clampNextRun(requested: Date | string | null | undefined, now: Date): Date {
  const at = requested ? new Date(requested) : null;
  const wanted = at && !Number.isNaN(at.getTime()) ? at.getTime() : now.getTime() + DEFAULT_DELAY_MS;
  return new Date(Math.min(Math.max(wanted, now.getTime() + env.MIN_RUN_INTERVAL_MS), now.getTime() + MAX_DELAY_MS));
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

/** What the service keeps of the model's state: its object, plus the last notified finding, within 16 KB. */
function nextState(modelState: Record<string, unknown>, lastNotified: unknown) {
  const state = { ...modelState, [LAST_NOTIFIED]: lastNotified ?? null };
  if (JSON.stringify(state).length <= MAX_STATE_BYTES) return state;
  return { [LAST_NOTIFIED]: lastNotified ?? null, truncated: true, summary: JSON.stringify(modelState).slice(0, MAX_STATE_BYTES / 2) };
}

/**
 * Applies the service's rules: a notification only for a met condition with a finding the owner has not been
 * told about yet (never the same finding twice), sources deduplicated, next_run clamped, state bounded.
 */
export function finalizeDecision(
  d: ModelDecision,
  ctx: { now: Date; lastKnownState: Record<string, unknown> | null },
) {
  const previous = ctx.lastKnownState?.[LAST_NOTIFIED] ?? null;
  const key = d.finding_key?.trim() || (d.notification ? d.notification.title.trim().toLowerCase() : null);
  const isNew = key !== null && key !== previous;
  const notify = d.condition_met && d.notify && isNew;
  const notification = notify ? (d.notification ?? { title: d.answer.split("\n")[0]!.slice(0, 120), markdown: d.answer }) : null;
  return {
    condition_met: d.condition_met,
    answer: d.answer,
    evidence: d.evidence,
    confidence: d.confidence,
    sources: dedupeSources(d.sources),
    notify,
    notification,
    next_run: clampNextRun(d.next_run, ctx.now),
    next_run_reason: d.next_run_reason,
    done: d.done,
    last_known_state: nextState(d.state, notify ? key : previous),
  };
}
