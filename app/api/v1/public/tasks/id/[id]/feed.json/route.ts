/** JSON Feed 1.1 of a public watch's findings: the RSS feed's items (CONTRACT §10). */
import { publicTaskJsonFeed } from "@/server/public/service";
import { servePublicRead } from "@/server/public/routes";

export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  return servePublicRead(req, (await params).id, { bucket: "feeds", contentType: "application/feed+json; charset=utf-8", render: publicTaskJsonFeed });
}
