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

/**
 * CPU seconds a process and its children have used (utime + stime, /proc), the children that exited included
 * (cutime + cstime: a database's connections come and go; a server's workers when it serves from several processes).
 */
export function treeCpuSeconds(pid) {
  const ticks = (stat) => {
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]); // its own and its exited children's
  };
  let total = 0;
  const tree = new Set([pid]);
  // /proc lists parents before the children they start; a second pass catches any listed earlier.
  for (let pass = 0; pass < 2; pass++)
    for (const entry of fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (tree.has(ppid)) tree.add(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
  for (const p of tree) {
    try {
      total += ticks(fs.readFileSync(`/proc/${p}/stat`, "utf8"));
    } catch {
      // gone meanwhile
    }
  }
  return total / 100; // USER_HZ
}
