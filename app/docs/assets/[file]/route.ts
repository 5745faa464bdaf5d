import fs from "node:fs/promises";
import path from "node:path";

const FILES: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

// Swagger UI has a dark mode of its own (html.dark-mode); the app's follows the system's colour scheme, so does it.
// Deep links are off: they put a link inside each operation's button (a control in a control, for screen readers).
// Its servers menu gets the name its label does not give it.
const INIT = `const dark = matchMedia("(prefers-color-scheme: dark)");
const scheme = () => document.documentElement.classList.toggle("dark-mode", dark.matches);
scheme();
dark.addEventListener("change", scheme);
window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#docs", deepLinking: false,
  persistAuthorization: false, tryItOutEnabled: false,
  onComplete: () => document.getElementById("servers")?.setAttribute("aria-label", "Server") });`;

export async function GET(_req: Request, { params }: { params: Promise<{ file: string }> }) {
  const { file } = await params;
  if (file === "init.js") return new Response(INIT, { headers: { "content-type": "text/javascript; charset=utf-8" } });
  const type = FILES[file];
  if (!type) return Response.json({ detail: "Not Found" }, { status: 404 });
  const body = await fs.readFile(path.join(process.cwd(), "node_modules/swagger-ui-dist", file));
  return new Response(body, { headers: { "content-type": type, "cache-control": "public, max-age=86400" } });
}
