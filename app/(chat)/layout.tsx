import { Sidebar } from "@/components/chat/sidebar";
import { currentUserId } from "@/lib/auth";
import { listSessions } from "@/lib/db/queries";

export default async function ChatLayout({ children }: { children: React.ReactNode }) {
  const userId = await currentUserId();
  const sessions = userId ? listSessions(userId) : [];
  return (
    <div className="flex h-dvh overflow-hidden">
      <div className="hidden w-64 shrink-0 border-r border-zinc-200 bg-zinc-50 md:block dark:border-zinc-800 dark:bg-zinc-900/40">
        <Sidebar initialSessions={sessions} />
      </div>
      {children}
    </div>
  );
}
