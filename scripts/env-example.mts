/** npm run env:example: writes .env.example and the variables table of docs/configuration.md from server/env.ts. */
import fs from "node:fs";
import path from "node:path";
import { renderEnvExample, withEnvTable } from "../server/env-docs.ts";

const root = path.resolve(import.meta.dirname, "..");
fs.writeFileSync(path.join(root, ".env.example"), renderEnvExample());
const docs = path.join(root, "docs/configuration.md");
fs.writeFileSync(docs, withEnvTable(fs.readFileSync(docs, "utf8")));
console.log("wrote .env.example and docs/configuration.md");
