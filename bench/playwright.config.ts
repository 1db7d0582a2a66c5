import { defineConfig } from "@playwright/test";

/** The browser half of `npm run bench`; bench/run.ts starts the server and passes BENCH_* variables. */
export default defineConfig({
  testDir: ".",
  testMatch: "*.bench.ts",
  timeout: 180_000,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: process.env.BENCH_URL,
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
});
