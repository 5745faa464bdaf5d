/** JSON Feed 1.1 of a public watch's findings: the RSS feed's items. */
import { notModifiedOr } from "@/server/http/conditional";
import { ENDPOINTS } from "@/server/http/endpoints";
import { route } from "@/server/http/route";
import { publicTaskJsonFeed } from "@/server/public/service";

export const dynamic = "force-dynamic";

export const GET = route(ENDPOINTS.jsonFeed, async (req, { id }) => {
  return notModifiedOr(req, await publicTaskJsonFeed(id), {
    "content-type": `${ENDPOINTS.jsonFeed.produces.type}; charset=utf-8`,
  });
});
