import type { Metadata } from "next";
import Link from "next/link";
import { cache } from "react";
import { Chat } from "@/components/chat/chat";
import { currentUserId } from "@/lib/accounts/identity";
import { listAgents } from "@/lib/agent/registry";
import { attachmentLimits } from "@/lib/config";
import { getSession, listTasks } from "@/lib/db/queries";
import { NotFoundError } from "@/lib/errors";
import { TURNS_PER_PAGE } from "@/lib/query-keys";

/** The chat and its latest page of tasks, or null when it does not exist or is not the caller's; once per request (metadata and page). */
const load = cache(async (id: string) => {
  const userId = await currentUserId();
  if (!userId) return null;
  try {
    const [session, tasks] = await Promise.all([getSession(userId, id), listTasks(userId, id, { limit: TURNS_PER_PAGE })]);
    return { session, tasks: { data: tasks.items, next_before: tasks.nextBefore } };
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
});

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const loaded = await load((await params).id);
  return { title: loaded ? loaded.session.name : "Chat not found" };
}

export default async function ChatPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ draft?: string; turn?: string }>;
}) {
  const { id } = await params;
  const { draft, turn } = await searchParams;
  const loaded = await load(id);
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
  return (
    <Chat
      key={id}
      session={loaded.session}
      initialTasks={loaded.tasks}
      agents={listAgents()}
      draft={draft}
      targetTurn={turn}
      attachmentLimits={attachmentLimits()}
    />
  );
}
