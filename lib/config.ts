/** Where the embedded SQLite database lives (SPEC §5). */
export function databasePath(): string {
  return process.env.DATABASE_PATH || "data/retrace.db";
}
