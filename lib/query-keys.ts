/** React Query keys: one place, so actions invalidate exactly what they change. */
export const queryKeys = {
  sessions: ["sessions"] as const,
  agents: ["agents"] as const,
  session: (id: string) => ["session", id] as const,
  tasks: (id: string, includeRewound = false) => ["tasks", id, includeRewound] as const,
  allTasks: (id: string) => ["tasks", id] as const,
  artifacts: (id: string) => ["artifacts", id] as const,
};
