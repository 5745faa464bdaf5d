/** The SVG badge of a public watch's verdict, for READMEs and other sites (CONTRACT §10). */
import { z } from "zod";
import { notModifiedOr } from "@/server/http/conditional";
import { route } from "@/server/http/route";
import { publicTaskBadge } from "@/server/public/service";
import { Id } from "@/server/tasks/schemas";

export const dynamic = "force-dynamic";

/**
 * An image any site may embed: `Cross-Origin-Resource-Policy: cross-origin` lets pages that require it (COEP) load
 * it too. Opened on its own, the SVG may run nothing.
 */
const IMAGE_HEADERS = {
  "content-type": "image/svg+xml; charset=utf-8",
  "cross-origin-resource-policy": "cross-origin",
  "content-security-policy": "default-src 'none'",
};

export const GET = route<{ id: string }>({ bucket: "badge" }, async (req, params) => {
  const { id } = z.object({ id: Id }).parse(params);
  return notModifiedOr(req, await publicTaskBadge(id), IMAGE_HEADERS);
});
