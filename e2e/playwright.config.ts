import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3111);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "watch-e2e-"));

export default defineConfig({
  testDir: ".",
  outputDir: "../test-results",
  timeout: 30_000,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
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
  webServer: {
    command: "node scripts/start.mjs",
    cwd: "..",
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    env: { PORT: String(port), HOSTNAME: "127.0.0.1", DATA_DIR: dataDir, SERVICE_NOAUTH: "1", WEBHOOK_ALLOW_PRIVATE: "1" },
  },
});
