import Link from "next/link";
import { Chat } from "@/components/chat/chat";
import { listAgents } from "@/lib/agent/registry";
import { currentUserId } from "@/lib/auth";
import { getSession, listTasks } from "@/lib/db/queries";
import { NotFoundError } from "@/lib/errors";

async function load(userId: string | null, id: string) {
  if (!userId) return null;
  try {
    const [session, tasks] = await Promise.all([getSession(userId, id), listTasks(userId, id)]);
    return { session, tasks: tasks.items };
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

export default async function ChatPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ draft?: string }>;
}) {
  const { id } = await params;
  const { draft } = await searchParams;
  const loaded = await load(await currentUserId(), id);
  if (!loaded) {
    return (
      <main className="flex flex-1 flex-col items-center justify-center gap-3 text-center">
        <h1 className="text-lg font-semibold">Chat not found</h1>
        <p className="text-sm text-zinc-500">It does not exist, was deleted, or belongs to someone else.</p>
        <Link href="/" className="text-sm underline underline-offset-2">
          Start a new chat
        </Link>
      </main>
    );
  }
  return <Chat key={id} session={loaded.session} initialTasks={loaded.tasks} agents={listAgents()} draft={draft} />;
}
