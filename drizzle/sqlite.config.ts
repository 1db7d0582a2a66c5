import { defineConfig } from "drizzle-kit";

/** `npm run db:generate` writes the SQLite migrations from lib/db/schema/sqlite.ts. */
export default defineConfig({
  dialect: "sqlite",
  schema: "./lib/db/schema/sqlite.ts",
  out: "./drizzle/sqlite",
});
