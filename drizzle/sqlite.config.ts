import { defineConfig } from "drizzle-kit";

/** `npm run db:generate` writes the SQLite migrations from lib/db/schema/sqlite.ts, accounts-sqlite.ts and blobs-sqlite.ts. */
export default defineConfig({
  dialect: "sqlite",
  // The accounts and attachments tables import `users` from the store's schema, so the store's cannot re-export them.
  schema: ["./lib/db/schema/sqlite.ts", "./lib/db/schema/accounts-sqlite.ts", "./lib/db/schema/blobs-sqlite.ts"],
  out: "./drizzle/sqlite",
});
