const OFFLINE = "Couldn't reach the server — check your connection";

/** An error as a person can read it: a network failure ("Failed to fetch") says what happened instead. */
export function readableError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /failed to fetch|fetch failed|network ?error|load failed/i.test(message) ? OFFLINE : message;
}

/** The connection to the server was lost (offline, or a stream cut off), as opposed to an answer it gave. */
export const isConnectionLost = (error: unknown) => !navigator.onLine || readableError(error) === OFFLINE;
