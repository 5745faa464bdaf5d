/** Browsable API documentation (Swagger UI, served from node_modules: no CDN, works offline). */

// Its scripts carry the nonce of the page's Content-Security-Policy (proxy.ts).
const page = (nonce: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Watch API</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <style>body { margin: 0 } .topbar { display: none }</style>
  </head>
  <body>
    <main id="docs"></main>
    <script nonce="${nonce}" src="/docs/assets/swagger-ui-bundle.js"></script>
    <script nonce="${nonce}" src="/docs/assets/init.js"></script>
  </body>
</html>`;

export const GET = (request: Request) =>
  new Response(page(request.headers.get("x-nonce")?.replace(/[^A-Za-z0-9+/=]/g, "") ?? ""), {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
