import { defineConfig } from "drizzle-kit";

/** `npm run db:generate` writes the PostgreSQL migrations from lib/db/schema/postgres.ts, accounts-postgres.ts and blobs-postgres.ts. */
export default defineConfig({
  dialect: "postgresql",
  // The accounts and attachments tables import `users` from the store's schema, so the store's cannot re-export them.
  schema: ["./lib/db/schema/postgres.ts", "./lib/db/schema/accounts-postgres.ts", "./lib/db/schema/blobs-postgres.ts"],
  out: "./drizzle/postgres",
});
