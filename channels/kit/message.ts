/**
 * What every chat and push message says, from the same notice as the email: the event, the watch's name, the answer
 * (at most ANSWER_MAX characters, cut on a word), the confidence of a finding, up to three sources and the watch's
 * URL. Everything but the watch URL comes from the model, the pages it read or the watch's owner, so it is made inert
 * here once (links defanged, sources limited to http(s)); each channel's payload builder then escapes it for its
 * format with its one escaping function.
 */
import { defang } from "../../lib/defang";
import { cutOnWord } from "./format";

export const ANSWER_MAX = 1_000;
export const SOURCES_MAX = 3;

/** A message names a source by its link and title (its site shows in the link). */
export type Source = { url: string; title: string };

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

/** A source URL that could hold a second link (a quote, a bracket, a space) is not kept as written in text. */
const BREAKS_OUT = /[()[\]<>"'|\\\s]/u;

/**
 * Text made inert: every URL and linkable name defanged, except the run's own source URLs, which may stay as written
 * (they are shown as links anyway) unless one could carry a link of its own in a chat client (`…/a)[x](https://…`).
 */
export function inert(text: string, sources: readonly Source[]): string {
  const keep = [...new Set(sources.map((s) => s.url))]
    .filter((u) => u.length > 10 && !BREAKS_OUT.test(u))
    .sort((a, b) => b.length - a.length);
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
  kind: MessageKind;
  title: string;
  watch: string;
  answer: string;
  confidence?: number | null;
  sources: readonly Source[];
  url: string;
  timestamp?: string;
}): ChatMessage {
  const sources = input.sources.filter((s) => isHttp(s.url)).slice(0, SOURCES_MAX);
  return {
    kind: input.kind,
    label: LABELS[input.kind],
    title: inert(oneLine(input.title), []),
    watch: inert(oneLine(input.watch), []),
    answer: inert(cutOnWord(input.answer.trim(), ANSWER_MAX), sources),
    confidence: input.kind === "met" ? (input.confidence ?? null) : null,
    sources: sources.map((s) => ({ url: s.url, title: inert(oneLine(s.title) || new URL(s.url).hostname, []) })),
    url: input.url,
    timestamp: input.timestamp ?? new Date().toISOString(),
  };
}
