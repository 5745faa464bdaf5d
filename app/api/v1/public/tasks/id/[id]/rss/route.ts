/** RSS of a public watch's findings. XML, so served here rather than through the JSON OpenAPI adapter. */
import { publicTaskRss } from "@/server/public/service";
import { servePublicRead } from "@/server/public/routes";

export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  return servePublicRead(req, (await params).id, { bucket: "feeds", contentType: "application/rss+xml; charset=utf-8", render: publicTaskRss });
}
