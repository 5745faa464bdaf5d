/** RSS of a public watch's findings. XML, so served here rather than through the JSON OpenAPI adapter. */
import { z } from "zod";
import { notModifiedOr } from "@/server/http/conditional";
import { route } from "@/server/http/route";
import { publicTaskRss } from "@/server/public/service";
import { Id } from "@/server/tasks/schemas";

export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>({ bucket: "feeds" }, async (req, params) => {
  const { id } = z.object({ id: Id }).parse(params);
  return notModifiedOr(req, await publicTaskRss(id), { "content-type": "application/rss+xml; charset=utf-8" });
});
