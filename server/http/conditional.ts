/**
 * Conditional GET for the public reads: entity tags, If-None-Match, and their cache policy. A 304 is
 * decided after the rate limit has counted the request, and before anything (a view) is counted.
 */
import { createHash } from "node:crypto";

/**
 * RSS, JSON Feed, the badge and the public watch JSON: the same for every visitor, so a CDN may keep them for a
 * minute. Nothing user-specific is ever sent with it (pages that show viewer-specific buttons stay uncacheable).
 */
export const PUBLIC_CACHE_CONTROL = "public, max-age=60";

/**
 * A strong tag for bytes served as they are; a weak one (`W/`) for a representation that the tag does not cover
 * whole (the public watch JSON: its view_count is left out).
 */
export function entityTag(content: string, weak = false): string {
  const tag = `"${createHash("sha256").update(content).digest("base64url").slice(0, 27)}"`;
  return weak ? `W/${tag}` : tag;
}

/** Whether `If-None-Match` names this tag, by weak comparison (RFC 9110 §13.1.2), or is `*`. */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return header.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === wanted);
}

/**
 * A public read's answer: `body` with its strong tag and the cache policy, or 304 without it when the client's
 * If-None-Match names the tag (the rate limit has counted the request already: the route's bucket).
 */
export function notModifiedOr(
  req: Request,
  body: string,
  headers: Record<string, string> & { "content-type": string },
): Response {
  const { "content-type": contentType, ...rest } = headers;
  const etag = entityTag(body);
  const common = { ...rest, etag, "cache-control": PUBLIC_CACHE_CONTROL };
  if (matchesIfNoneMatch(req.headers.get("if-none-match"), etag))
    return new Response(null, { status: 304, headers: common });
  return new Response(body, { headers: { ...common, "content-type": contentType } });
}
