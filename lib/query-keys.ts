/** React Query keys: one place, so actions invalidate exactly what they change. */
export const queryKeys = {
  sessions: ["sessions"] as const,
  agents: ["agents"] as const,
  session: (id: string) => ["session", id] as const,
  tasks: (id: string, includeRewound = false) => ["tasks", id, includeRewound] as const,
  allTasks: (id: string) => ["tasks", id] as const,
  artifacts: (id: string) => ["artifacts", id] as const,
  versions: (id: string) => ["versions", id] as const,
  /** Every search; a change to which version a chat shows invalidates them all. */
  searches: ["search"] as const,
  search: (q: string, includeRewound: boolean) => ["search", q, includeRewound] as const,
  tree: (id: string) => ["tree", id] as const,
  /** Two versions of a turn side by side; a switch does not change what they hold. */
  compare: (id: string, a: string, b: string) => ["compare", id, a, b] as const,
  /** The signed-in account's lists; invalidating `account` refreshes them all. */
  account: ["account"] as const,
  devices: ["account", "devices"] as const,
  passkeys: ["account", "passkeys"] as const,
  tokens: ["account", "tokens"] as const,
};

/** Page sizes, the same for what the server renders and what the browser fetches after it. */
export const TURNS_PER_PAGE = 50;
export const CHATS_PER_PAGE = 50;
export const HITS_PER_PAGE = 20;
