/** The turn bus on PostgreSQL: NOTIFY on one channel, one LISTEN connection per app instance. */
import pg from "pg";
import { type BusMessage, listeners, type TurnBus } from "./bus";

const CHANNEL = "retrace_turns";
/** NOTIFY payloads stop at 8000 bytes: longer streamed text goes out in pieces. */
const MAX_TEXT = 1500;

function pieces(message: BusMessage): BusMessage[] {
  if (message.kind !== "partial" || message.text.length <= MAX_TEXT) return [message];
  const out: BusMessage[] = [];
  for (let i = 0; i < message.text.length; i += MAX_TEXT) {
    out.push({ ...message, offset: message.offset + i, text: message.text.slice(i, i + MAX_TEXT) });
  }
  return out;
}

export async function postgresBus(url: string, pool: pg.Pool): Promise<TurnBus> {
  const registry = listeners();
  let client: pg.Client | null = null;
  let closed = false;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on("notification", ({ payload }) => {
      if (!payload) return;
      const { taskId, message } = JSON.parse(payload) as { taskId: string; message: BusMessage };
      registry.dispatch(taskId, message);
    });
    // A lost LISTEN connection is replaced; watchers also poll, so a gap only delays them.
    next.on("error", () => {
      if (closed) return;
      client = null;
      setTimeout(() => void connect().catch(() => undefined), 1000);
    });
    await next.connect();
    await next.query(`LISTEN ${CHANNEL}`);
    client = next;
  };
  await connect();
  return {
    async publish(taskId, message) {
      for (const piece of pieces(message)) {
        await pool.query("SELECT pg_notify($1, $2)", [CHANNEL, JSON.stringify({ taskId, message: piece })]);
      }
    },
    subscribe: registry.add,
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  };
}
