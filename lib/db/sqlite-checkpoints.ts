/**
 * WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside the COMMIT that
 * crosses its threshold, copying the WAL into the database file and syncing it on the event loop: a
 * 10k-turn fork's COMMIT took 81 ms that way against 19 ms here (fork 184 → 121 ms, medians of 12).
 * A worker thread with its own connection checkpoints shortly after writes instead.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";

/** The main connection still checkpoints past this many WAL pages (~80 MB), should the worker fail. */
export const MAIN_CHECKPOINT_PAGES = 20_000;
/** Writes within this long share one checkpoint. */
const DELAY_MS = 100;

const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
// No busy timeout: this connection never waits for the app's; it tries again after the next write.
const db = new (require(workerData.driver))(workerData.file, { timeout: 0 });
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    return parentPort.close();
  }
  try {
    // The bulk, beside the app's writers; then the few pages committed meanwhile, and the WAL back to
    // empty (only a checkpoint that caught up with every commit can restart it), holding the write lock
    // briefly, or not at all when the app is writing.
    db.pragma("wal_checkpoint(PASSIVE)");
    db.pragma("wal_checkpoint(RESTART)");
  } catch (error) {
    console.error("SQLite checkpoint failed:", error);
  }
  parentPort.postMessage("done");
});
`;

export function checkpointer(file: string) {
  // Resolved from the working directory, like the migrations: the bundled app has no node_modules of its own.
  const driver = createRequire(path.join(process.cwd(), "package.json")).resolve("better-sqlite3");
  const worker = new Worker(WORKER, { eval: true, workerData: { driver, file: path.resolve(file) } });
  worker.unref();
  worker.on("error", (error) => console.error("the SQLite checkpoint worker stopped:", error));
  let running = false;
  let wanted = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (running || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = true;
      wanted = false;
      worker.postMessage("checkpoint");
    }, DELAY_MS).unref();
  };
  worker.on("message", () => {
    running = false;
    if (wanted) schedule();
  });
  return {
    /** Called after each write: a checkpoint follows within DELAY_MS (or right after the one running). */
    afterWrite() {
      wanted = true;
      schedule();
    },
    /** Closes the worker's connection, then the worker. */
    async close() {
      clearTimeout(timer);
      // Referenced again so the process waits for the exit: with nothing else pending, an unreferenced
      // worker would let Node end mid-await (exit code 13 under a top-level await).
      worker.ref();
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      worker.postMessage("close");
      let fallback: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (fallback = setTimeout(resolve, 1000)))]);
      clearTimeout(fallback);
      await worker.terminate();
    },
  };
}
