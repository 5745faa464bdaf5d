/** The SVG badge of a public watch's verdict, for READMEs and other sites. */
import { notModifiedOr } from "@/server/http/conditional";
import { ENDPOINTS } from "@/server/http/endpoints";
import { route } from "@/server/http/route";
import { publicTaskBadge } from "@/server/public/service";

export const dynamic = "force-dynamic";

/**
 * An image any site may embed: `Cross-Origin-Resource-Policy: cross-origin` lets pages that require it (COEP) load
 * it too. Opened on its own, the SVG may run nothing.
 */
const IMAGE_HEADERS = {
  "content-type": `${ENDPOINTS.badge.produces.type}; charset=utf-8`,
  "cross-origin-resource-policy": "cross-origin",
  "content-security-policy": "default-src 'none'",
};

export const GET = route(ENDPOINTS.badge, async (req, { id }) => {
  return notModifiedOr(req, await publicTaskBadge(id), IMAGE_HEADERS);
});
