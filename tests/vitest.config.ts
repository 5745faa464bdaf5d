import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";
import { TEST_NODE_FLAGS } from "./helpers/server";
import SlowestFirst from "./sequencer";

const root = path.resolve(import.meta.dirname, "..");
const shared = { resolve: { alias: { "@": root } } };

/**
 * Test files run side by side, each in a worker process of its own (its own database, stubs and servers). Most of a
 * file's time is waiting (on a server it started, a run's model stub, a delivery's retry), so a pool of twice the
 * cores keeps both busy; WATCH_TEST_WORKERS overrides it (1: one file at a time, to tell a file's own time).
 */
const workers = Number(process.env.WATCH_TEST_WORKERS) || Math.max(2, os.availableParallelism() * 2);

/**
 * Unit files that configure the service through the process's environment before importing it (it reads its
 * configuration once per process): each needs a worker of its own.
 */
const UNIT_ISOLATED = [
  "tests/unit/agent-fetch.test.ts",
  "tests/unit/agent.test.ts",
  "tests/unit/channel-delivery.test.ts",
  "tests/unit/operation-statuses.test.ts",
  "tests/unit/providers.test.ts",
];

export default defineConfig({
  root,
  ...shared,
  test: {
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    execArgv: TEST_NODE_FLAGS,
    maxWorkers: workers,
    reporters: ["default", "./tests/times-reporter.ts"],
    sequence: { sequencer: SlowestFirst },
    setupFiles: ["tests/usage-setup.ts"],
    projects: [
      // Black-box tests against one built server started by the global setup. First: Vitest runs the projects' global
      // setups in this order, and this one's starts the build before the database template is made.
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
      // A worker runs file after file without importing again (half the tier's CPU), so a file must leave the
      // process as it found it: the environment guard fails one that does not.
      {
        ...shared,
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          exclude: UNIT_ISOLATED,
          root,
          isolate: false,
          setupFiles: ["tests/environment-guard.ts"],
          globalSetup: ["tests/template-setup.ts"],
        },
      },
      {
        ...shared,
        extends: true,
        test: { name: "unit-isolated", include: UNIT_ISOLATED, root, globalSetup: ["tests/template-setup.ts"] },
      },
      // The service in-process (tests/helpers/service.ts): routers, REST, runs and deliveries on a database per file.
      // A worker runs file after file without importing the service again (half the tier's CPU): each file starts the
      // services on its own database and stubs, and their stop forgets what the start kept (server/start-state.ts).
      {
        ...shared,
        extends: true,
        test: {
          name: "service",
          include: ["tests/service/**/*.test.ts"],
          root,
          isolate: false,
          globalSetup: ["tests/template-setup.ts"],
        },
      },
    ],
  },
});
