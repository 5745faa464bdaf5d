import { openApiDocument } from "@/server/api/openapi";

export const dynamic = "force-dynamic";
export const GET = () => Response.json(openApiDocument());
