/** RSS of a public watch's findings. XML, so served here rather than through the JSON OpenAPI adapter. */
import { z } from "zod";
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE, isDatabaseUnavailable } from "@/server/db/availability";
import { publicTaskRss } from "@/server/public/service";
import { rateLimitMessage, takeToken } from "@/server/ratelimit";

export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const verdict = await takeToken("rss", req.headers.get("x-watch-client-ip") ?? "unknown");
  if (!verdict.ok) return Response.json({ detail: rateLimitMessage(verdict.retryAfter) }, { status: 429, headers: verdict.headers });
  if (!z.guid().safeParse(id).success)
    return Response.json(
      { detail: [{ type: "uuid_parsing", loc: ["path", "id"], msg: "Input should be a valid UUID", input: id }] },
      { status: 422, headers: verdict.headers },
    );
  try {
    const xml = await publicTaskRss(id);
    return new Response(xml, { headers: { ...verdict.headers, "content-type": "application/rss+xml; charset=utf-8" } });
  } catch (e) {
    if ((e as { code?: string }).code === "NOT_FOUND") return Response.json({ detail: "Task not found" }, { status: 404, headers: verdict.headers });
    if (isDatabaseUnavailable(e))
      return Response.json({ detail: DATABASE_UNAVAILABLE }, { status: 503, headers: { ...verdict.headers, "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) } });
    console.error("rss failed", e);
    return Response.json({ detail: "Internal Server Error" }, { status: 500 });
  }
}
