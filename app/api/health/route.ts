import { json } from "@/lib/api/handler";
import { getDb } from "@/lib/db/connection";

/**
 * For load balancers: 200 when the database answers, every shipped migration is applied and this instance
 * hears the others (PostgreSQL's LISTEN); else 503, with what is wrong.
 */
export async function GET() {
  try {
    const db = await getDb();
    const { applied, shipped } = await db.migrations();
    const current = applied >= shipped;
    const listening = db.bus.listening();
    const data = {
      database: "ok",
      dialect: db.dialect.name,
      migrations: current ? "current" : "behind",
      notifications: listening ? "ok" : "reconnecting",
    };
    if (!listening) {
      return json(
        {
          error: "Reconnecting to the database's notifications: turns on other instances cannot be followed or stopped from here",
          code: "degraded",
          data,
        },
        503,
      );
    }
    return json({ data }, current ? 200 : 503);
  } catch (error) {
    console.error("health check:", error);
    return json({ error: "The database is unreachable", code: "unavailable" }, 503);
  }
}
