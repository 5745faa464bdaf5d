import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: ".",
  outputDir: "../test-results",
  globalSetup: "./global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // Files run side by side, the tests of one file one after another: the no-auth tests share one account, and run all
  // at once they passed its 600 reads a minute (a page answered 429 in a fresh clone's CI).
  fullyParallel: false,
  workers: 2,
  reporter: [["list"]],
  use: {
    browserName: "chromium",
    launchOptions: {
      // Debian's chromium: Playwright never downloads a browser here.
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    { name: "clerk", testMatch: /(dashboard|follow|control|inbox)\.spec\.ts/ },
    { name: "noauth", testMatch: /(noauth|smoke|security|share|trust|design)\.spec\.ts/ },
  ],
});
