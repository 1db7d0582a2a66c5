/** React Query keys: one place, so actions invalidate exactly what they change. */
export const queryKeys = {
  sessions: ["sessions"] as const,
  agents: ["agents"] as const,
  session: (id: string) => ["session", id] as const,
  tasks: (id: string, includeRewound = false) => ["tasks", id, includeRewound] as const,
  allTasks: (id: string) => ["tasks", id] as const,
  artifacts: (id: string) => ["artifacts", id] as const,
  versions: (id: string) => ["versions", id] as const,
  tree: (id: string) => ["tree", id] as const,
};

/** Page sizes, the same for what the server renders and what the browser fetches after it. */
export const TURNS_PER_PAGE = 50;
export const CHATS_PER_PAGE = 50;
