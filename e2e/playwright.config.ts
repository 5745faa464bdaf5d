import fs from "node:fs";
import { defineConfig } from "@playwright/test";

/**
 * Debian's chromium: Playwright never downloads a browser here. Its headless shell (package chromium-headless-shell,
 * what Playwright itself runs headless) over the full browser where installed: the same Blink, without the browser's
 * UI, at about half the CPU per page load.
 */
const chromium =
  process.env.CHROMIUM_PATH ??
  ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"].find((p) => fs.existsSync(p)) ??
  "/usr/bin/chromium";

export default defineConfig({
  testDir: ".",
  outputDir: "../test-results",
  globalSetup: "./global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // Files run side by side, the tests of one file one after another: side by side too they gained nothing on a quiet
  // machine, and on a busy one the Clerk tests' 60 s ran out.
  fullyParallel: false,
  workers: 2,
  reporter: [["list"]],
  use: {
    browserName: "chromium",
    launchOptions: {
      executablePath: chromium,
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
