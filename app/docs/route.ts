/** Browsable API documentation (Swagger UI, served from node_modules: no CDN, works offline). */
export const dynamic = "force-static";

const html = `<!doctype html>
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
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/init.js"></script>
  </body>
</html>`;

export const GET = () => new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
