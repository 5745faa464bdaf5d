/**
 * A public watch's verdict in words, as the badge and the Open Graph image say it: "met" while its last notified
 * finding stands, "resolved" once the watch is completed with it, else "watching".
 */
import { makeBadge } from "badge-maker";
import { formatDate } from "../render/dates";
import type { Resolution } from "../tasks/schemas";

/** "2 Nov 2026", in UTC: the same words for every visitor (the badge and the image are cached for everyone). */
export const verdictDate = (iso: string) => formatDate(iso, "UTC");

/** The badge's right-hand side: "watching", "met · 2 Nov 2026", "resolved · 2 Nov 2026". */
export function verdictLabel(r: Resolution): string {
  return r.since && r.status !== "watching" ? `${r.status} · ${verdictDate(r.since)}` : r.status;
}

/**
 * The answer to the watch's question, as the Open Graph image says it: "Yes, found 2 Nov 2026", or "Not yet". The date
 * is when the agent found it, which is not necessarily when it happened.
 */
export function verdictSentence(r: Resolution): string {
  return r.status === "watching" || !r.since ? "Not yet" : `Yes, found ${verdictDate(r.since)}`;
}

/** Colours with at least 4.5:1 contrast against the badge's white text. */
export const VERDICT_COLORS: Record<Resolution["status"], string> = {
  watching: "#0969da",
  met: "#1a7f37",
  resolved: "#8250df",
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
 * that read "watch: met · 2 Nov 2026"). It holds no text of the watch's own, only its status and date.
 */
export function verdictBadge(r: Resolution): string {
  return makeBadge({
    label: "watch",
    message: verdictLabel(r),
    color: VERDICT_COLORS[r.status],
    labelColor: "#555",
    style: "flat",
  });
}
