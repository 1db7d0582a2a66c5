import "server-only";
/**
 * What an app instance does once, at start-up (instrumentation.ts): start OpenTelemetry when configured
 * (lib/telemetry/sdk.ts), stamp each request with its connection's
 * address (lib/accounts/client-address.ts), check the configuration, open the store (migrations, backfills,
 * the operator's app state), sweep up turns and imports of crashed instances and expired uploads (and keep doing so), and, on
 * SIGTERM/SIGINT, interrupt its own running turns before the process exits.
 */
import { watchPeers } from "@/lib/accounts/client-address";
import { stopLocalTurns } from "@/lib/agent/live";
import { config } from "@/lib/config";
import { getDb } from "@/lib/db/connection";
import { reapAbandonedImports, reapAbandonedTurns, reapBlobs } from "@/lib/db/queries";
import { startTelemetry, stopTelemetry } from "@/lib/telemetry/sdk";

const REAP_EVERY_MS = 5_000;

async function reap() {
  await reapAbandonedImports();
  await reapBlobs();
  const reaped = await reapAbandonedTurns();
  if (reaped.length === 0) return;
  const { bus } = await getDb();
  // Watchers of those turns (on any instance) learn that they ended.
  for (const taskId of reaped) await bus.publish(taskId, { kind: "changed" });
}

/**
 * Next.js exits right after it stops serving; a turn that is still being interrupted would lose its
 * last write. So process.exit waits (briefly) for this instance's turns to be stored and released.
 */
function shutDownGracefully() {
  let stopping: Promise<void> | null = null;
  const exit = process.exit.bind(process);
  const stop = () => {
    // The last turns' spans are exported once they end.
    stopping ??= stopLocalTurns().finally(stopTelemetry);
    process.exit = ((code?: number) => {
      void stopping?.finally(() => exit(code));
    }) as typeof process.exit;
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

export async function startServer() {
  await startTelemetry();
  watchPeers();
  const stop = (why: string) => {
    console.error(`Retrace cannot start: ${why}`);
    process.exit(1);
  };
  let database: ReturnType<typeof config>["database"] | undefined;
  try {
    database = config().database;
    await getDb();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!database) return stop(message);
    stop(
      `cannot open the database that ${database.kind === "postgres" ? "DATABASE_URL names" : `DATABASE_PATH (${database.path}) names`}: ${message}`,
    );
  }
  await reap();
  setInterval(() => void reap().catch((error) => console.error("reaping abandoned turns and imports:", error)), REAP_EVERY_MS).unref();
  shutDownGracefully();
}
