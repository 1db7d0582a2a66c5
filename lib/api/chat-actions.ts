"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { validatedAction } from "@/lib/api/action";
import { labelInput } from "@/lib/api/schemas";
import { deleteSession, forkSession, labelVersion, renameSession, rewindSession } from "@/lib/db/queries";
import { MAX_CHAT_NAME } from "@/lib/session/names";

const sessionId = z.string().min(1).max(100);
const invocationId = z.string().min(1).max(200);

/**
 * The chat's page as the server rendered it is stale after a rewind or a fork: Next.js drops it from its caches and
 * the browser's router cache, so Back, or a visit once React Query has let the chat go, renders it anew. What is on
 * screen refreshes through React Query (components/chat/queries.ts), as after every other change.
 */
const revalidateChat = (sessionId: string) => revalidatePath(`/chat/${encodeURIComponent(sessionId)}`);

export const renameChat = validatedAction(
  z.object({ sessionId, name: z.string().trim().min(1, "Name must not be empty").max(MAX_CHAT_NAME) }),
  ({ sessionId, name }, userId) => renameSession(userId, sessionId, name),
);

export const deleteChat = validatedAction(z.object({ sessionId }), async ({ sessionId }, userId) => {
  await deleteSession(userId, sessionId);
  return { id: sessionId };
});

/** Rewind to before an invocation; rewinding before a marker's invocation undoes (Undo) or restores (Restore) what it hid. */
export const rewindChat = validatedAction(
  z.object({ sessionId, invocationId, reason: z.enum(["rewind", "undo", "restore"]).optional() }),
  async ({ sessionId, invocationId, reason }, userId) => {
    const { event, session } = await rewindSession(userId, sessionId, invocationId, reason);
    revalidateChat(sessionId);
    return { markerInvocationId: event.invocation_id, state: session.state };
  },
);

/** Fork before an invocation, or duplicate the whole chat when none is given. */
export const forkChat = validatedAction(
  z.object({ sessionId, invocationId: invocationId.optional() }),
  async ({ sessionId, invocationId }, userId) => {
    const fork = await forkSession(userId, sessionId, { invocationId });
    revalidateChat(sessionId);
    return fork;
  },
);

/** Names and pins a turn of the chat (the map's and History's versions); no name and no pin removes them. */
export const labelChatVersion = validatedAction(
  labelInput.extend({ sessionId, invocationId }),
  ({ sessionId, invocationId, ...label }, userId) => labelVersion(userId, sessionId, invocationId, label),
);
