import { beforeEach } from "vitest";
import { openDb, setDb } from "@/lib/db/client";

process.env.DATABASE_PATH = ":memory:";

// Every test gets a fresh database built by the real migrations.
beforeEach(() => {
  setDb(openDb(":memory:"));
});
