import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: ".",
  outputDir: "../test-results",
  globalSetup: "./global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // Every test runs side by side with the others, those of one file too: each Clerk test signs in a user of its own,
  // and the no-auth server lifts the per-account limits its tests share (e2e/global-setup.ts).
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
