import { openApiJson } from "@/server/api/openapi";

export const dynamic = "force-dynamic";

export const GET = () => new Response(openApiJson(), { headers: { "content-type": "application/json" } });
