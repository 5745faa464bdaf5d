/** The SVG badge of a public watch's verdict, for READMEs and other sites (CONTRACT §10). */
import { publicTaskBadge } from "@/server/public/service";
import { servePublicRead } from "@/server/public/routes";

export const dynamic = "force-dynamic";

/**
 * An image any site may embed: `Cross-Origin-Resource-Policy: cross-origin` lets pages that require it (COEP) load
 * it too. Opened on its own, the SVG may run nothing.
 */
const IMAGE_HEADERS = { "cross-origin-resource-policy": "cross-origin", "content-security-policy": "default-src 'none'" };

export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  return servePublicRead(req, (await params).id, { bucket: "badge", contentType: "image/svg+xml; charset=utf-8", render: publicTaskBadge, headers: IMAGE_HEADERS });
}
