import { openApiDocument } from "@/server/api/openapi";

export const dynamic = "force-dynamic";

let body: string | undefined;
export const GET = () =>
  new Response((body ??= JSON.stringify(openApiDocument())), { headers: { "content-type": "application/json" } });
