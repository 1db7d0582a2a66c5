/** `npx tsx scripts/check-db.ts [path]`: integrity check plus the store's invariants on any database file. */
import Database from "better-sqlite3";
import { checkInvariants } from "@/lib/db/invariants";

const file = process.argv[2] ?? process.env.DATABASE_PATH ?? "data/retrace.db";
const problems = checkInvariants(new Database(file, { readonly: true, fileMustExist: true }));
for (const p of problems) console.error(p);
console.log(problems.length ? `${problems.length} problem(s) in ${file}` : `${file}: consistent`);
process.exit(problems.length ? 1 : 0);
