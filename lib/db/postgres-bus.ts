/** The turn bus on PostgreSQL: NOTIFY on one channel, one LISTEN connection per app instance. */
import pg from "pg";
import { type BusMessage, listeners, type TurnBus } from "./bus";

const CHANNEL = "retrace_turns";
/**
 * NOTIFY payloads stop at 8,000 bytes: streamed text goes out in chunks whose JSON (escapes included:
 * a control character takes six bytes) stays under this, leaving room for the rest of the message.
 */
const MAX_TEXT_BYTES = 6_000;
/** The LISTEN connection, once lost, is tried again after this, doubling up to RETRY_MAX_MS. */
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 2_000;

/** Bytes `text` takes inside a JSON string, in UTF-8. */
const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;

/** `text` cut into runs of at most `budget` JSON bytes each, never inside a surrogate pair. */
export function cutByBytes(text: string, budget: number): string[] {
  const runs: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i) as number;
    const width = code > 0xffff ? 2 : 1;
    const size = jsonBytes(text.slice(i, i + width));
    if (bytes + size > budget && i > start) {
      runs.push(text.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += size;
    i += width;
  }
  if (start < text.length || runs.length === 0) runs.push(text.slice(start));
  return runs;
}

function chunks(message: BusMessage): BusMessage[] {
  if (message.kind !== "partial" || jsonBytes(message.text) <= MAX_TEXT_BYTES) return [message];
  let offset = message.offset;
  return cutByBytes(message.text, MAX_TEXT_BYTES).map((text) => {
    const chunk = { ...message, offset, text };
    offset += text.length;
    return chunk;
  });
}

/**
 * One LISTEN connection per instance, whose notifications fan out to this instance's listeners. A lost
 * connection (a PostgreSQL restart, a network cut) is reconnected with backoff and LISTENs again;
 * watchers and running turns poll meanwhile, so a gap delays them but loses nothing stored.
 */
export async function postgresBus(url: string, pool: pg.Pool): Promise<TurnBus> {
  const registry = listeners();
  let client: pg.Client | null = null;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let delay = RETRY_MIN_MS;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on("notification", ({ payload }) => {
      if (!payload) return;
      const { taskId, message } = JSON.parse(payload) as { taskId: string; message: BusMessage };
      registry.dispatch(taskId, message);
    });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (client === next) client = null;
      void next.end().catch(() => undefined);
      reconnectLater();
    };
    next.on("error", onLost);
    next.on("end", onLost);
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      onLost();
      throw error;
    }
    if (closed || lost) return void next.end().catch(() => undefined);
    client = next;
    delay = RETRY_MIN_MS;
  };

  function reconnectLater() {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect().catch(() => undefined);
    }, delay);
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  }

  try {
    await connect();
  } catch (error) {
    closed = true;
    clearTimeout(retry);
    throw error;
  }
  return {
    async publish(taskId, message) {
      for (const chunk of chunks(message)) {
        await pool.query("SELECT pg_notify($1, $2)", [CHANNEL, JSON.stringify({ taskId, message: chunk })]);
      }
    },
    subscribe: registry.add,
    listening: () => client !== null,
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
