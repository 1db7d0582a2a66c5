import { defineConfig } from "drizzle-kit";

/** `npm run db:generate` writes the SQLite migrations from lib/db/schema/sqlite.ts and accounts-sqlite.ts. */
export default defineConfig({
  dialect: "sqlite",
  // The accounts tables import `users` from the store's schema, so the store's cannot re-export them.
  schema: ["./lib/db/schema/sqlite.ts", "./lib/db/schema/accounts-sqlite.ts"],
  out: "./drizzle/sqlite",
});
