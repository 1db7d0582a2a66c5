/** Users: guests are created on demand; each carries the activity counter and byte count of its chats. */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { getDb } from "./connection";

export async function createUser(): Promise<string> {
  const id = randomUUID();
  const db = await getDb();
  await db.run(sql`INSERT INTO users (id, created_at) VALUES (${id}, ${Date.now()})`);
  return id;
}
