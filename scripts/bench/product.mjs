// How the benchmarks start the product: `npm start`'s node flags (package.json), then scripts/start.mjs.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const start = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts.start;
const flags = /^node (.*?)\s*scripts\/start\.mjs$/.exec(start)?.[1]?.split(" ").filter(Boolean) ?? [];

export const productArgs = [...flags, path.join(root, "scripts/start.mjs")];
