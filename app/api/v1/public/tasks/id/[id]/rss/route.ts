/** RSS of a public watch's findings. XML, so served here rather than through the JSON OpenAPI adapter. */
import { notModifiedOr } from "@/server/http/conditional";
import { ENDPOINTS } from "@/server/http/endpoints";
import { route } from "@/server/http/route";
import { publicTaskRss } from "@/server/public/service";

export const dynamic = "force-dynamic";

export const GET = route(ENDPOINTS.rss, async (req, { id }) => {
  return notModifiedOr(req, await publicTaskRss(id), {
    "content-type": `${ENDPOINTS.rss.produces.type}; charset=utf-8`,
  });
});
