/**
 * Browsable API documentation: Swagger UI (from node_modules: no CDN, works offline) inside the app's shell,
 * themed like the rest of the app in light and dark. Its scripts carry the page's nonce (proxy.ts); links here load
 * the page in full, so they always run.
 */
import type { Metadata } from "next";
import { headers } from "next/headers";
import "swagger-ui-dist/swagger-ui.css";
import "./swagger-theme.css";

export const metadata: Metadata = { title: "API docs" };

export default async function ApiDocs() {
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    // Not a <main>: Swagger UI renders its own.
    <div className="page wide api-docs">
      <div className="page-header">
        <div>
          <h1>Watch API</h1>
          <p className="lead">
            Everything the dashboard does, over REST, with an API key from Settings. The same operations come with an
            SDK and the <code>watchctl</code> command line.
          </p>
        </div>
        <a className="button secondary" href="/api/v1/openapi.json">
          OpenAPI document
        </a>
      </div>
      {/* Swagger UI fills this from its script, often before React hydrates the page: an element whose content React
          takes as set from outside, so hydration leaves it alone instead of re-rendering the page without it. */}
      <div id="docs" dangerouslySetInnerHTML={{ __html: "" }} suppressHydrationWarning />
      <script nonce={nonce} src="/docs/assets/swagger-ui-bundle.js" defer />
      <script nonce={nonce} src="/docs/assets/init.js" defer />
    </div>
  );
}
