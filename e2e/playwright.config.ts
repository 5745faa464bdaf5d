import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: ".",
  outputDir: "../test-results",
  globalSetup: "./global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // Tests of one file run side by side too (none depends on another's state: each has its own user or watches), so a
  // long file (inbox's four journeys) spreads over both workers instead of running its tests one after another.
  fullyParallel: true,
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
