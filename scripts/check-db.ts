/**
 * `npx tsx --import ./scripts/server-context.mjs scripts/check-db.ts [sqlite-file]`: the store's invariants (plus SQLite's integrity check)
 * on a database — the file given, else the one the environment configures (DATABASE_URL or DATABASE_PATH).
 */
import { closeDb, getDb } from "@/lib/db/connection";
import { checkInvariants } from "@/lib/db/tx/invariants";

if (process.argv[2]) process.env.DATABASE_PATH = process.argv[2];
const db = await getDb();
const problems = await checkInvariants(db);
for (const p of problems) console.error(p);
console.log(problems.length ? `${problems.length} problem(s)` : "consistent");
await closeDb();
process.exit(problems.length ? 1 : 0);
