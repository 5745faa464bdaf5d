/**
 * A watch's verdict in words, as the badge, the Open Graph image and emails say it: one state (server/tasks/verdict.ts
 * decides which), never "watching" on a paused watch or "not yet" over a found answer.
 */
import { makeBadge } from "badge-maker";
import { formatDate } from "../render/dates";
import { VERDICT_WORDS, type Verdict, type VerdictState } from "../tasks/verdict";

/** "2 Nov 2026", in UTC: the same words for every visitor (the badge and the image are cached for everyone). */
export const verdictDate = (iso: string) => formatDate(iso, "UTC");

/** The badge's right-hand side, the verdict's words in lower case: "met · 2 Nov 2026", "not yet", "paused", … */
export function verdictLabel(v: Pick<Verdict, "state" | "since">): string {
  const words = VERDICT_WORDS[v.state].toLowerCase();
  return (v.state === "met" || v.state === "resolved") && v.since ? `${words} · ${verdictDate(v.since)}` : words;
}

/**
 * The answer to the watch's question in a sentence, as the Open Graph image and emails say it: "Yes, found 2 Nov 2026",
 * "Not yet (checked 2 Nov 2026)", "Paused (last checked 2 Nov 2026)", "Can't check right now", … The date of a
 * finding is when the agent found it, which is not necessarily when it happened.
 */
export function verdictSentence(v: Verdict): string {
  const checked = v.as_of ? verdictDate(v.as_of) : null;
  switch (v.state) {
    case "met":
    case "resolved":
      return v.since ? `Yes, found ${verdictDate(v.since)}` : "Yes";
    case "held":
      return "Found, not sent yet: held back by the watch's bounds";
    case "paused":
      return checked ? `Paused (last checked ${checked})` : "Paused";
    case "cant_check":
      return v.failure === "yours" ? "Can't check: the watch needs a change" : "Can't check right now; retrying";
    case "first_check":
      return v.running ? "First check under way" : "First check pending";
    case "not_yet":
      return checked ? `Not yet (checked ${checked})` : "Not yet";
  }
}

/** Colours with at least 4.5:1 contrast against the badge's white text. */
export const VERDICT_COLORS: Record<VerdictState, string> = {
  met: "#1a7f37",
  resolved: "#8250df",
  not_yet: "#0969da",
  held: "#7d4e00",
  paused: "#57606a",
  cant_check: "#cf222e",
  first_check: "#0550ae",
};

/**
 * The Open Graph image of each verdict, drawn once: rendering one costs 77–160 ms of CPU, and link previews fetch it
 * over and over. Images are kept by the entity tag of what they draw (so a changed verdict, name or owner is a new
 * image and the old one ages out), the most recently drawn within IMAGE_CACHE_BYTES; concurrent requests for an image
 * not drawn yet share one rendering.
 */
const IMAGE_CACHE_BYTES = 16 * 1024 * 1024;
const images = new Map<string, { png: Promise<ArrayBuffer>; bytes: number }>();
let cachedBytes = 0;

export function verdictImage(tag: string, render: () => Promise<ArrayBuffer>): Promise<ArrayBuffer> {
  const hit = images.get(tag);
  if (hit) {
    images.delete(tag); // most recently used last
    images.set(tag, hit);
    return hit.png;
  }
  const entry = { png: render(), bytes: 0 };
  images.set(tag, entry);
  entry.png.then(
    (png) => {
      if (images.get(tag) !== entry) return;
      entry.bytes = png.byteLength;
      cachedBytes += png.byteLength;
      for (const [oldTag, old] of images) {
        if (cachedBytes <= IMAGE_CACHE_BYTES || old === entry) break;
        images.delete(oldTag);
        cachedBytes -= old.bytes;
      }
    },
    () => images.get(tag) === entry && images.delete(tag),
  );
  return entry.png;
}

/**
 * A shields-style badge (badge-maker: text widths measured in Verdana, `role="img"`, an `aria-label` and a `<title>`
 * that read "watch: met · 2 Nov 2026"). It holds no text of the watch's own, only its state and date.
 */
export function verdictBadge(v: Verdict): string {
  return makeBadge({
    label: "watch",
    message: verdictLabel(v),
    color: VERDICT_COLORS[v.state],
    labelColor: "#555",
    style: "flat",
  });
}
