/**
 * What every chat message says, from the same notice data as the email (./../content): the event, the watch's name,
 * the answer (at most ANSWER_MAX characters, cut on a word), the confidence of a finding, up to three sources and the
 * watch's URL. Everything but the watch URL comes from the model, the pages it read or the watch's owner, so it is
 * made inert here once (links defanged, sources limited to http(s)) and escaped for its format by that format's one
 * escaping function.
 */
import { defang } from "../../../lib/defang";
import type { Source as SourceView } from "../../tasks/schemas";

/** A message names a source by its link and title (its site shows in the link). */
type Source = Pick<SourceView, "url" | "title">;
import type { SendEvent } from "../events";

export const ANSWER_MAX = 1_000;
export const SOURCES_MAX = 3;

export type MessageKind = "met" | "retracted" | "failing" | "recovered" | "test" | "account";

export type ChatMessage = {
  kind: MessageKind;
  /** "Condition met", "Retracted", …: ours, not hostile. */
  label: string;
  title: string;
  watch: string;
  answer: string;
  confidence: number | null;
  sources: Source[];
  /** The watch's page (ours). */
  url: string;
  timestamp: string;
};

const KINDS: Record<SendEvent, MessageKind> = {
  "task.condition_met": "met",
  "task.condition_retracted": "retracted",
  "task.run_failed": "failing",
  "task.run_recovered": "recovered",
  "account.budget_exhausted": "account",
  "task.test": "test",
  "email.verification": "account",
  "follow.confirmation": "account",
  "digest.daily": "account",
};

const LABELS: Record<MessageKind, string> = {
  met: "Condition met",
  retracted: "Retracted",
  failing: "Watch failing",
  recovered: "Watch recovered",
  test: "Test notification",
  account: "Account notice",
};

const isHttp = (url: string) => {
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:";
  } catch {
    return false;
  }
};

/**
 * Text made inert: every URL and linkable name defanged, except the run's own source URLs, which may stay as written
 * (they are shown as links anyway).
 */
export function inert(text: string, sources: readonly Source[]): string {
  const keep = [...new Set(sources.map((s) => s.url))].filter((u) => u.length > 10).sort((a, b) => b.length - a.length);
  if (!keep.length) return defang(text);
  const parts: string[] = [];
  let rest = text;
  for (;;) {
    let at = -1;
    let hit = "";
    for (const u of keep) {
      const i = rest.indexOf(u);
      if (i >= 0 && (at < 0 || i < at)) [at, hit] = [i, u];
    }
    if (at < 0) break;
    parts.push(defang(rest.slice(0, at)), hit);
    rest = rest.slice(at + hit.length);
  }
  parts.push(defang(rest));
  return parts.join("");
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

export function chatMessage(input: {
  event: SendEvent;
  title: string;
  watch: string;
  answer: string;
  confidence?: number | null;
  sources: readonly Source[];
  url: string;
  timestamp?: string;
}): ChatMessage {
  const kind = KINDS[input.event];
  const sources = input.sources.filter((s) => isHttp(s.url)).slice(0, SOURCES_MAX);
  return {
    kind,
    label: LABELS[kind],
    title: inert(oneLine(input.title), []),
    watch: inert(oneLine(input.watch), []),
    answer: inert(cutOnWord(input.answer.trim(), ANSWER_MAX), sources),
    confidence: kind === "met" ? (input.confidence ?? null) : null,
    sources: sources.map((s) => ({ url: s.url, title: inert(oneLine(s.title) || new URL(s.url).hostname, []) })),
    url: input.url,
    timestamp: input.timestamp ?? new Date().toISOString(),
  };
}

/** "87%" */
export const percent = (confidence: number) => `${Math.round(confidence * 100)}%`;

/** At most `max` characters (UTF-16 code units), cut on a word (or mid-word when there is none near) with "…". */
export function cutOnWord(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const space = cut.search(/\s\S*$/);
  if (space > max * 0.6) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

/**
 * `escape(text)` within `max` characters: escaping may lengthen the text (`&` is `&amp;`), so the raw text is cut
 * until its escaped form fits, never in the middle of an escape.
 */
export function fitEscaped(text: string, max: number, escape: (raw: string) => string): string {
  const whole = escape(text);
  if (whole.length <= max) return whole;
  let [lo, hi] = [0, Math.min(text.length, max)];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (escape(cutOnWord(text, mid)).length <= max) lo = mid;
    else hi = mid - 1;
  }
  return escape(cutOnWord(text, Math.max(lo, 1))).slice(0, max);
}
