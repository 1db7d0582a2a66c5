import { writeFileSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
// Playwright's workers load this config first: specs that open the store import server-only modules.
import "./scripts/server-context.mjs";
import { chromiumPath } from "./e2e/support/chromium";
import { INSTANCE_A, INSTANCE_B, POSTGRES_PORT, SHARED_SECRET } from "./e2e/support/instances";

const PORT = Number(process.env.E2E_PORT ?? 3210);
const FAKE_OPENAI_PORT = Number(process.env.FAKE_OPENAI_PORT ?? 3211);
const baseURL = `http://127.0.0.1:${PORT}`;
// E2E_PORT, FAKE_OPENAI_PORT and E2E_DIST_DIR let a second suite run beside this one in the same checkout.
const DATA_DIR = `.e2e-data-${PORT}`;
const DIST_DIR = process.env.E2E_DIST_DIR ?? ".next-e2e";
/** `team`: an agent of two priced models at the fake endpoint, for the model menu, Regenerate with… and costs. */
const AGENTS_FILE = `.e2e-agents-${PORT}.json`;
writeFileSync(
  AGENTS_FILE,
  JSON.stringify({
    agents: [
      {
        name: "team",
        description: "Two models at the fake endpoint",
        base_url: `http://127.0.0.1:${FAKE_OPENAI_PORT}/v1`,
        api_key_env: "OPENAI_API_KEY",
        models: [
          { name: "fake-model", model: "fake-model", price: { input_per_million: 150, output_per_million: 600 } },
          { name: "fake-mini", model: "fake-mini", price: { input_per_million: 50, output_per_million: 200 } },
        ],
      },
    ],
  }),
);
const model = {
  OPENAI_BASE_URL: `http://127.0.0.1:${FAKE_OPENAI_PORT}/v1`,
  OPENAI_API_KEY: "test-key",
  OPENAI_MODEL: "fake-model",
  AGENTS_FILE,
};
/** The suite's browsers reach every instance from 127.0.0.1, each device behind its own X-Forwarded-For (e2e/support/accounts.ts). */
const PROXY = { RETRACE_TRUSTED_PROXIES: "127.0.0.1" };
/** One of the two app instances that share one PostgreSQL (README, "Scaling"), from the same production build. */
const postgresInstance = (url: string) => ({
  command: `npx next start -p ${new URL(url).port} -H 127.0.0.1`,
  url: `${url}/api/health`,
  timeout: 120_000,
  env: {
    NEXT_DIST_DIR: DIST_DIR,
    DATABASE_URL: `postgres://postgres@127.0.0.1:${POSTGRES_PORT}/postgres`,
    AUTH_SECRET: SHARED_SECRET,
    DEMO_WORD_DELAY_MS: "40",
    ...PROXY,
    ...model,
  },
  reuseExistingServer: Boolean(process.env.E2E_REUSE),
  stdout: "pipe" as const,
});

export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never" }]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      // CHROMIUM_PATH, else the system's Chromium, else Playwright's own (see e2e/support/setup-chromium.ts).
      executablePath: chromiumPath(),
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  // Started in this order, each once the one before answers.
  webServer: [
    {
      command: `node e2e/support/fake-openai.mjs`,
      url: `http://127.0.0.1:${FAKE_OPENAI_PORT}/health`,
      env: { FAKE_OPENAI_PORT: String(FAKE_OPENAI_PORT) },
      reuseExistingServer: Boolean(process.env.E2E_REUSE),
    },
    {
      // The production build, on a throwaway SQLite database, as a user would run it.
      command: `rm -rf ${DATA_DIR} && npm run build && npx next start -p ${PORT} -H 127.0.0.1`,
      url: `${baseURL}/`,
      timeout: 300_000,
      env: {
        NEXT_DIST_DIR: DIST_DIR,
        DATABASE_PATH: `${DATA_DIR}/retrace.db`,
        AUTH_SECRET: SHARED_SECRET,
        DEMO_WORD_DELAY_MS: "20",
        ...PROXY,
        ...model,
      },
      reuseExistingServer: Boolean(process.env.E2E_REUSE),
      stdout: "pipe",
    },
    {
      // A throwaway PostgreSQL cluster (Debian's postgresql is installed first when it is missing).
      command: `npx tsx scripts/test-postgres.ts --port ${POSTGRES_PORT}`,
      port: POSTGRES_PORT,
      timeout: 300_000,
      reuseExistingServer: Boolean(process.env.E2E_REUSE),
      gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
    },
    postgresInstance(INSTANCE_A),
    postgresInstance(INSTANCE_B),
  ],
});
