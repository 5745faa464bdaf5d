/**
 * `npm run client:generate`: client/openapi.json → client/openapi.d.ts (starts no server).
 * `npm run client:snapshot`: first refresh client/openapi.json from the routers' document (the one served at
 * GET /api/v1/openapi.json), then generate. tests/http/client.test.ts fails when the snapshot is stale,
 * tests/unit/client.test.ts when the types are.
 */
import fs from "node:fs";
import { readSnapshot, renderTypes, SNAPSHOT, TYPES } from "../client/generate";

if (process.argv.includes("--snapshot")) {
  // The snapshot documents the default limits, whatever this shell overrides.
  for (const name of Object.keys(process.env)) if (name.startsWith("RATE_LIMIT_")) delete process.env[name];
  const { openApiDocument } = await import("../server/api/openapi");
  fs.writeFileSync(SNAPSHOT, JSON.stringify(openApiDocument(), null, 2) + "\n");
  console.log("wrote client/openapi.json");
}
fs.writeFileSync(TYPES, await renderTypes(readSnapshot()));
console.log("wrote client/openapi.d.ts");
