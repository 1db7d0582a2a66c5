import { defineConfig } from "vitest/config";

/** Suites that touch the store run twice: on SQLite and on a throwaway PostgreSQL cluster. */
const BOTH_DIALECTS = [
  "tests/store-*.test.ts",
  "tests/api-*.test.ts",
  "tests/actions.test.ts",
  "tests/accounts-*.test.ts",
  "tests/invariants.test.ts",
  "tests/concurrency.test.ts",
  "tests/turns.test.ts",
  "tests/lib-agent-*.test.ts",
  "tests/lib-a2a-request-handler.test.ts",
  "tests/lib-a2a-frames.test.ts",
  "tests/lib-a2a-v1.test.ts",
  "tests/lib-a2a-live.test.ts",
];

export default defineConfig({
  // The server's modules `import "server-only"`: tests run them as Next.js does on the server.
  resolve: { alias: { "@": import.meta.dirname, "server-only": `${import.meta.dirname}/node_modules/server-only/empty.js` } },
  test: {
    environment: "node",
    setupFiles: ["tests/setup.ts"],
    testTimeout: 20000,
    projects: [
      { extends: true, test: { name: "sqlite", include: ["tests/**/*.test.ts"], env: { TEST_DIALECT: "sqlite" } } },
      {
        extends: true,
        test: {
          name: "postgres",
          include: BOTH_DIALECTS,
          env: { TEST_DIALECT: "postgres" },
          globalSetup: ["tests/support/postgres-global.ts"],
        },
      },
    ],
  },
});
