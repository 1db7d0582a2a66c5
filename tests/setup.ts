import { beforeEach } from "vitest";
import { openDb, setDb } from "@/lib/db/client";

process.env.DATABASE_PATH = ":memory:";
process.env.AUTH_SECRET ??= "test-secret";

// Every test gets a fresh database built by the real migrations.
beforeEach(() => {
  setDb(openDb(":memory:"));
});
