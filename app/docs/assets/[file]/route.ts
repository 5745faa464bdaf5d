import fs from "node:fs/promises";
import path from "node:path";

const FILES: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

const INIT = `window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#docs", deepLinking: true,
  persistAuthorization: false, tryItOutEnabled: false });`;

export async function GET(_req: Request, { params }: { params: Promise<{ file: string }> }) {
  const { file } = await params;
  if (file === "init.js") return new Response(INIT, { headers: { "content-type": "text/javascript; charset=utf-8" } });
  const type = FILES[file];
  if (!type) return Response.json({ detail: "Not Found" }, { status: 404 });
  const body = await fs.readFile(path.join(process.cwd(), "node_modules/swagger-ui-dist", file));
  return new Response(body, { headers: { "content-type": type, "cache-control": "public, max-age=86400" } });
}
