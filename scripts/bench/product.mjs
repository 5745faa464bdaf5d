// How the benchmarks start and stop the product: `npm start`'s node flags (package.json), then scripts/start.mjs.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const start = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts.start;
const flags = /^node (.*?)\s*scripts\/start\.mjs$/.exec(start)?.[1]?.split(" ").filter(Boolean) ?? [];

export const productArgs = [...flags, path.join(root, "scripts/start.mjs")];

/**
 * The per-user rate limits and the watch cap lifted: a benchmark's one user sends thousands of reads and writes a
 * minute, and a run of creates makes more watches than an account may hold (past it, each create would measure a 403).
 */
export const unlimited = {
  RATE_LIMIT_USER_PER_MIN: "100000000",
  RATE_LIMIT_READS_PER_MIN: "100000000",
  MAX_WATCHES_PER_ACCOUNT: "100000000",
};

/** BENCH_SERVER_NODE_ARGS: extra node flags for the benchmarked servers, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof". */
export const benchNodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];

/** SIGTERM, then resolves once the process has exited (at most 15 s). */
export const stopped = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const timer = setTimeout(resolve, 15_000);
    child.once("exit", () => (clearTimeout(timer), resolve()));
    child.kill("SIGTERM");
  });
