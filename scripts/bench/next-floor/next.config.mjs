import path from "node:path";
import { fileURLToPath } from "node:url";
const here = path.dirname(fileURLToPath(import.meta.url));
const config = { turbopack: { root: path.resolve(here, "../../..") }, serverExternalPackages: ["pg"] };
export default config;
