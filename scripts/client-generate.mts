/**
 * `npm run client:generate`: the SDK's types come from the server's own OpenAPI document.
 * Writes client/schema.d.ts from the document the routers produce (the one served at /api/v1/openapi.json);
 * tests/unit/client.test.ts fails when it is stale.
 */
import fs from "node:fs";
import path from "node:path";
import { renderClientFiles } from "../client/generate";

const root = path.resolve(import.meta.dirname, "..");
for (const [file, text] of Object.entries(await renderClientFiles())) {
  fs.writeFileSync(path.join(root, "client", file), text);
  console.log(`wrote client/${file}`);
}
