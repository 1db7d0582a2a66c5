import { json } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";

/** For load balancers: 200 when the database answers and every shipped migration is applied, else 503. */
export async function GET() {
  try {
    const db = await getDb();
    const { applied, shipped } = await db.migrations();
    const current = applied >= shipped;
    return json({ data: { database: "ok", dialect: db.dialect.name, migrations: current ? "current" : "behind" } }, current ? 200 : 503);
  } catch (error) {
    console.error("health check:", error);
    return json({ error: "The database is unreachable", code: "unavailable" }, 503);
  }
}
