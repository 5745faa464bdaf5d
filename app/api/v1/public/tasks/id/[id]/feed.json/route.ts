/** JSON Feed 1.1 of a public watch's findings: the RSS feed's items (CONTRACT §10). */
import { z } from "zod";
import { notModifiedOr } from "@/server/http/conditional";
import { route } from "@/server/http/route";
import { publicTaskJsonFeed } from "@/server/public/service";
import { Id } from "@/server/tasks/schemas";

export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>({ bucket: "feeds" }, async (req, params) => {
  const { id } = z.object({ id: Id }).parse(params);
  return notModifiedOr(req, await publicTaskJsonFeed(id), { "content-type": "application/feed+json; charset=utf-8" });
});
