import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");
const shared = { resolve: { alias: { "@": root } } };

/**
 * Test files run side by side, each in a worker process of its own (its own database, stubs and servers). Most of a
 * file's time is waiting (on a server it started, a run's model stub, a delivery's retry), so a pool of twice the
 * cores keeps both busy; WATCH_TEST_WORKERS overrides it (1: one file at a time, to tell a file's own time).
 */
const workers = Number(process.env.WATCH_TEST_WORKERS) || Math.max(2, os.availableParallelism() * 2);

/**
 * Unit files that each need a worker of their own: they open a database or start the durable engine (one per
 * process), change process.env or the modules' stubs.
 */
const STATEFUL_UNIT_FILES = [
  "agent-fetch",
  "agent",
  "channel-apprise",
  "channel-budgets",
  "channel-delivery",
  "embedded-limit",
  "operation-statuses",
  "paging",
  "providers",
  "retention-expiry",
  "retention",
  "row-parity",
  "run-claim",
  "state-change-rollback",
  "view-counts",
].map((name) => `tests/unit/${name}.test.ts`);

export default defineConfig({
  root,
  ...shared,
  test: {
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: workers,
    reporters: ["default", "./tests/times-reporter.ts"],
    setupFiles: ["tests/usage-setup.ts"],
    projects: [
      {
        ...shared,
        extends: true,
        // A worker runs file after file without importing the modules again (most of a unit file's time was its
        // imports): these files keep no state past their own hooks (tests/usage-setup.ts fails a file that changes
        // process.env here).
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          exclude: STATEFUL_UNIT_FILES,
          root,
          isolate: false,
          setupFiles: ["tests/env-unchanged-setup.ts"],
        },
      },
      {
        ...shared,
        extends: true,
        test: {
          name: "unit-stateful",
          include: STATEFUL_UNIT_FILES,
          root,
          globalSetup: ["tests/template-setup.ts"],
        },
      },
      // The service in-process (tests/helpers/service.ts): routers, REST, runs and deliveries on a database per file.
      {
        ...shared,
        extends: true,
        test: {
          name: "service",
          include: ["tests/service/**/*.test.ts"],
          root,
          globalSetup: ["tests/template-setup.ts"],
        },
      },
      // Black-box tests against one built server started by the global setup.
      {
        ...shared,
        extends: true,
        test: {
          name: "http",
          include: ["tests/http/**/*.test.ts"],
          root,
          globalSetup: ["tests/template-setup.ts", "tests/global-setup.ts"],
        },
      },
    ],
  },
});
