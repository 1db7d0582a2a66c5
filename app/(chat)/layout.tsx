import { SidebarShell } from "@/components/chat/sidebar/sidebar-shell";
import { currentUserId } from "@/lib/accounts/identity";
import { currentViewer, signInOptions } from "@/lib/accounts/viewer";
import { listSessions } from "@/lib/db/queries";
import { CHATS_PER_PAGE } from "@/lib/query-keys";

export default async function ChatLayout({ children }: { children: React.ReactNode }) {
  const userId = await currentUserId();
  const page = userId ? await listSessions(userId, { limit: CHATS_PER_PAGE }) : { items: [], nextBefore: null };
  return (
    <div className="flex h-dvh overflow-hidden">
      <SidebarShell
        initialSessions={{ data: page.items, next_before: page.nextBefore }}
        account={{ viewer: await currentViewer(), options: signInOptions() }}
      />
      {children}
    </div>
  );
}
