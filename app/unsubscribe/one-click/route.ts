/**
 * RFC 8058 one-click unsubscribe: mail clients POST `List-Unsubscribe=One-Click` (a form body) to the URL in a
 * follower email's `List-Unsubscribe` header, the token in its query. Same rule as the page's button.
 */
import { unsubscribe } from "@/server/follows/service";
import { route } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = route({}, async (req) =>
  Response.json(await unsubscribe(new URL(req.url).searchParams.get("token") ?? "")),
);
