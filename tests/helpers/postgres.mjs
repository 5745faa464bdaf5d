// A throwaway PostgreSQL cluster (Debian's postgresql package) for the test that stops the database under a running
// server, and for the benchmarks (scripts/bench/) when DATABASE_URL is not set.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const postgresBin = () => {
  const versions = fs.existsSync("/usr/lib/postgresql") ? fs.readdirSync("/usr/lib/postgresql").sort() : [];
  const bin = versions.length ? `/usr/lib/postgresql/${versions.at(-1)}/bin` : null;
  return bin && fs.existsSync(`${bin}/initdb`) ? bin : null;
};

/** Whether throwawayPostgres() can run here (the binaries, and root to run them as the postgres user). */
export const canRunThrowawayPostgres = () => postgresBin() !== null && process.getuid?.() === 0;

/** `settings`: more server settings, e.g. `-c shared_preload_libraries=pg_stat_statements` (a benchmark's statement count). */
export async function throwawayPostgres({ settings = "" } = {}) {
  const bin = postgresBin();
  if (!bin) throw new Error("PostgreSQL is not installed: apt-get install -y postgresql, or set DATABASE_URL");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "watch-pg-"));
  execFileSync("chown", ["postgres", dir]);
  const port = await freePort();
  const asPostgres = (args) => execFileSync("runuser", ["-u", "postgres", "--", ...args], { stdio: "ignore" });
  asPostgres([`${bin}/initdb`, "-D", dir, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const start = () =>
    asPostgres([
      `${bin}/pg_ctl`,
      "-D",
      dir,
      "-l",
      `${dir}/log`,
      "-w",
      "-o",
      `-p ${port} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 ${settings}`,
      "start",
    ]);
  start();
  const stop = () =>
    spawnSync("runuser", ["-u", "postgres", "--", `${bin}/pg_ctl`, "-D", dir, "-m", "fast", "-w", "stop"], {
      stdio: "ignore",
    });
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    dir,
    start,
    /** Stops the cluster; `start` brings it back with its data. */
    stop,
    /** Stops the cluster and deletes its data directory: the end of its use. */
    remove: () => {
      stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
