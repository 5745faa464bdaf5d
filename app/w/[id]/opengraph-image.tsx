/**
 * The Open Graph image of a public watch: its verdict card as a PNG (next/og), for link previews. Counted in the
 * badge's bucket; a private or unknown watch is a 404 like the API's. Each verdict is drawn once (`verdictImage`),
 * tagged with the ETag of what it draws: a matching If-None-Match is a 304.
 */
import { headers } from "next/headers";
import { ImageResponse } from "next/og";
import { entityTag, matchesIfNoneMatch, PUBLIC_CACHE_CONTROL } from "@/server/http/conditional";
import { VERDICT_COLORS, verdictImage, verdictSentence } from "@/server/public/verdict";
import { rateLimitMessage, takeToken } from "@/server/ratelimit";
import { findVerdict } from "@/server/tasks/reads";
import { resolutionOf, verdictFor } from "@/server/tasks/views";
import { VERDICT_STATES } from "../../ui/pill";

export const alt = "The watch's verdict";
export const size = { width: 1200, height: 630 };
export const contentType = "image/png";

/**
 * The characters the bundled font (Geist) draws. For any other, next/og would fetch a font or an emoji from the
 * internet while rendering: they are left out instead (a name in another script shows as the fallback).
 */
const UNDRAWABLE =
  /[^\u0020-\u007e\u00a0-\u00ac\u00ae-\u0113\u0116-\u012b\u012e-\u0137\u0139-\u013e\u0141-\u0148\u014a-\u014d\u0150-\u017e\u0400-\u045f\u2013\u2014\u2018-\u201a\u201c-\u201e\u2020-\u2022\u2026\u20ac]/gu;
const drawable = (s: string, fallback: string, max: number) => {
  const text = s.replace(/\s+/g, " ").replace(UNDRAWABLE, "").replace(/ {2,}/g, " ").trim() || fallback;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};
const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).hostname.replace(/^www\./, "") : "");

export default async function Image({ params }: { params: Promise<{ id: string }> }) {
  const request = await headers();
  const limit = await takeToken("badge", request.get("x-watch-client-ip") ?? "unknown");
  if (!limit.ok)
    return Response.json({ detail: rateLimitMessage(limit.retryAfter) }, { status: 429, headers: limit.headers });
  const row = await findVerdict((await params).id);
  if (!row?.is_public) return Response.json({ detail: "Task not found" }, { status: 404, headers: limit.headers });
  const r = resolutionOf(row);
  const verdict = verdictFor(row, "public");
  const sites = [...new Set(r.sources.map((s) => hostOf(s.url)).filter(Boolean))].slice(0, 3);
  // Everything the image draws, and nothing else: its tag names the image.
  const card = {
    status: verdict.state,
    owner: drawable(`Watch · @${row.owner_username ?? ""}`, "Watch", 60),
    name: drawable(row.name, "A public watch", 110),
    sentence: verdictSentence(verdict),
    footer: sites.length
      ? drawable(`per ${sites.join(", ")}`, "", 90)
      : drawable(`Watching for: ${row.condition_description}`, "", 90),
  };
  const etag = entityTag(JSON.stringify(card));
  const common = {
    ...limit.headers,
    etag,
    "cache-control": PUBLIC_CACHE_CONTROL,
    "cross-origin-resource-policy": "cross-origin",
  };
  if (matchesIfNoneMatch(request.get("if-none-match"), etag))
    return new Response(null, { status: 304, headers: common });
  const png = await verdictImage(etag, () => new ImageResponse(<VerdictImage {...card} />, size).arrayBuffer());
  return new Response(png, { headers: { ...common, "content-type": contentType } });
}

function VerdictImage(card: {
  status: keyof typeof VERDICT_COLORS;
  owner: string;
  name: string;
  sentence: string;
  footer: string;
}) {
  const color = VERDICT_COLORS[card.status];
  return (
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        flexDirection: "column",
        justifyContent: "space-between",
        padding: 64,
        background: "#ffffff",
        color: "#15171c",
        borderTop: `16px solid ${color}`,
      }}
    >
      <div style={{ display: "flex", fontSize: 30, color: "#5a6170" }}>{card.owner}</div>
      <div style={{ display: "flex", flexDirection: "column", gap: 28 }}>
        <div style={{ display: "flex", fontSize: 60, lineHeight: 1.15 }}>{card.name}</div>
        <div style={{ display: "flex", alignItems: "center", gap: 24 }}>
          <div
            style={{
              display: "flex",
              background: color,
              color: "#ffffff",
              fontSize: 34,
              padding: "6px 22px",
              borderRadius: 999,
            }}
          >
            {VERDICT_STATES[card.status].word}
          </div>
          <div style={{ display: "flex", fontSize: 46 }}>{card.sentence}</div>
        </div>
      </div>
      <div style={{ display: "flex", fontSize: 28, color: "#5a6170" }}>{card.footer}</div>
    </div>
  );
}
