import { SidebarShell } from "@/components/chat/sidebar-shell";
import { currentUserId } from "@/lib/auth";
import { listSessions } from "@/lib/db/queries";

export default async function ChatLayout({ children }: { children: React.ReactNode }) {
  const userId = await currentUserId();
  const sessions = userId ? (await listSessions(userId)).items : [];
  return (
    <div className="flex h-dvh overflow-hidden">
      <SidebarShell initialSessions={sessions} />
      {children}
    </div>
  );
}
