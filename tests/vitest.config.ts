import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");
const shared = { resolve: { alias: { "@": root } } };

export default defineConfig({
  root,
  ...shared,
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: false,
    projects: [
      {
        ...shared,
        extends: true,
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], root, globalSetup: ["tests/template-setup.ts"] },
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
