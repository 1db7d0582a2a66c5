import { defineConfig } from "@playwright/test";
import { chromiumPath } from "../e2e/support/chromium";

/** The browser half of `npm run bench`; bench/run.ts starts the server and passes BENCH_* variables. */
export default defineConfig({
  testDir: ".",
  testMatch: "*.bench.ts",
  timeout: 600_000,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: process.env.BENCH_URL,
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      // CHROMIUM_PATH, else the system's Chromium, else Playwright's own (see e2e/support/setup-chromium.ts).
      executablePath: chromiumPath(),
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
});
