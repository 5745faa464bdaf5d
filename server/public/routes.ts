/**
 * The public reads served beside the JSON API, as route handlers (RSS, JSON Feed, the SVG badge): the per-IP rate
 * limit, the id check, conditional GET (a 304 is counted by the limit like any request) and the `{detail}` errors
 * of the API.
 */
import { z } from "zod";
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE, isDatabaseUnavailable } from "../db/availability";
import { entityTag, matchesIfNoneMatch, PUBLIC_CACHE_CONTROL } from "../http/conditional";
import { rateLimitMessage, takeToken, type Bucket } from "../ratelimit";

export type PublicRead = {
  bucket: Bucket;
  contentType: string;
  /** The body for a public watch; throws the API's not-found error for a private or unknown one. */
  render: (id: string) => Promise<string>;
  /** Sent with the 200 and the 304. */
  headers?: Record<string, string>;
};

export async function servePublicRead(req: Request, id: string, read: PublicRead): Promise<Response> {
  const verdict = await takeToken(read.bucket, req.headers.get("x-watch-client-ip") ?? "unknown");
  if (!verdict.ok) return Response.json({ detail: rateLimitMessage(verdict.retryAfter) }, { status: 429, headers: verdict.headers });
  if (!z.guid().safeParse(id).success)
    return Response.json(
      { detail: [{ type: "uuid_parsing", loc: ["path", "id"], msg: "Input should be a valid UUID", input: id }] },
      { status: 422, headers: verdict.headers },
    );
  let body: string;
  try {
    body = await read.render(id);
  } catch (e) {
    if ((e as { code?: string }).code === "NOT_FOUND") return Response.json({ detail: "Task not found" }, { status: 404, headers: verdict.headers });
    if (isDatabaseUnavailable(e))
      return Response.json({ detail: DATABASE_UNAVAILABLE }, { status: 503, headers: { ...verdict.headers, "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) } });
    console.error(`${new URL(req.url).pathname} failed`, e);
    return Response.json({ detail: "Internal Server Error" }, { status: 500 });
  }
  const etag = entityTag(body);
  const headers = { ...verdict.headers, ...read.headers, etag, "cache-control": PUBLIC_CACHE_CONTROL };
  if (matchesIfNoneMatch(req.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(body, { headers: { ...headers, "content-type": read.contentType } });
}
