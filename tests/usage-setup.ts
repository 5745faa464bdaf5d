/**
 * Set up in every test file: what the file cost in CPU time (its worker from its imports on, and the servers it
 * started), and how many servers it started, for tests/times-reporter.ts. Measures that a busy machine does not change
 * much, unlike the file's wall time. In a tier whose worker runs several files (not isolated), a file's share is what
 * the worker spent since the previous file ended: the imports are paid by the first.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, expect } from "vitest";
import { serverUsage } from "./helpers/server";

const worker = globalThis as { __watchUsage?: { cpu: NodeJS.CpuUsage; serverCpuMs: number; starts: number } };
const since = (worker.__watchUsage ??= { cpu: process.cpuUsage(), serverCpuMs: 0, starts: 0 });

afterAll(() => {
  const dir = process.env.WATCH_TEST_USAGE_DIR;
  const own = process.cpuUsage(since.cpu);
  const serverCpuMs = serverUsage.cpuMs - since.serverCpuMs;
  const starts = serverUsage.starts - since.starts;
  Object.assign(since, { cpu: process.cpuUsage(), serverCpuMs: serverUsage.cpuMs, starts: serverUsage.starts });
  if (!dir) return;
  const file = expect.getState().testPath ?? "";
  fs.writeFileSync(
    path.join(dir, `${process.pid}-${Date.now()}.json`),
    JSON.stringify({ file, cpuMs: (own.user + own.system) / 1000 + serverCpuMs, serverCpuMs, starts }),
  );
});
