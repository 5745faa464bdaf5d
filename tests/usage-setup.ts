/**
 * Set up in every test file: what the file cost in CPU time (its worker from its imports on, and the servers it
 * started), and how many servers it started, for tests/times-reporter.ts. Measures that a busy machine does not change
 * much, unlike the file's wall time.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, expect } from "vitest";
import { serverUsage } from "./helpers/server";

const started = process.cpuUsage();

afterAll(() => {
  const dir = process.env.WATCH_TEST_USAGE_DIR;
  if (!dir) return;
  const own = process.cpuUsage(started);
  const file = expect.getState().testPath ?? "";
  fs.writeFileSync(
    path.join(dir, `${process.pid}-${Date.now()}.json`),
    JSON.stringify({
      file,
      cpuMs: (own.user + own.system) / 1000 + serverUsage.cpuMs,
      serverCpuMs: serverUsage.cpuMs,
      starts: serverUsage.starts,
    }),
  );
});
