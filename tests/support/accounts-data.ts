/** Users with data in every table a user owns, and checks that a merge moved all of it and touched nothing else. */
import { expect } from "vitest";
import { call, guestWithChat, routes } from "./api";
import { tableRows } from "./db";

type Auth = { token?: string; headers?: Record<string, string> };

/**
 * A guest whose rows reach every table a user owns: a chat with state, a session file and turns (events,
 * invocations, tasks), a fork of it, a deleted fork kept as a tombstone, `user:` state and a `user:` file.
 */
export async function richGuest(color = "blue") {
  const guest = await guestWithChat();
  const as: Auth = { token: guest.token };
  const fork = await call(routes.fork.POST, { ...as, method: "POST", params: { id: guest.sessionId }, body: { name: "A fork" } });
  // A deleted chat whose rows a fork still reads stays as a tombstone (sessions.deleted_at): it moves too.
  const tombstone = await call(routes.fork.POST, { ...as, method: "POST", params: { id: guest.sessionId }, body: { name: "Gone" } });
  const tombstoneId = tombstone.json.data.id as string;
  const own = { invocation_id: `inv-${crypto.randomUUID()}`, author: "user", content: { parts: [{ text: "gone" }] } };
  expect((await call(routes.events.POST, { ...as, method: "POST", params: { id: tombstoneId }, body: own })).status).toBe(201);
  await call(routes.fork.POST, { ...as, method: "POST", params: { id: tombstoneId }, body: { name: "Fork of gone" } });
  expect((await call(routes.session.DELETE, { ...as, method: "DELETE", params: { id: tombstoneId } })).status).toBe(200);
  await writeUserData(as, guest.sessionId, { "user:color": color, "user:guest_only": 1 }, [`guest ${color}`, "guest second"]);
  return { ...guest, forkId: fork.json.data.id as string, tombstoneId };
}

/** `user:` state keys (an event's delta) and versions of the `user:notes.txt` file, in the caller's chat. */
export async function writeUserData(as: Auth, sessionId: string, state: Record<string, unknown>, notes: string[]) {
  const events = await call(routes.events.POST, {
    ...as,
    method: "POST",
    params: { id: sessionId },
    body: { invocation_id: `inv-${crypto.randomUUID()}`, author: "user", actions: { state_delta: state } },
  });
  expect(events.status).toBe(201);
  for (const text of notes) {
    const saved = await call(routes.artifacts.POST, {
      ...as,
      method: "POST",
      params: { id: sessionId },
      body: { filename: "user:notes.txt", text },
    });
    expect(saved.status).toBe(201);
  }
}

/** Every row that mentions `userId` anywhere (ids, scopes, owners), table by table. */
export async function rowsMentioning(userId: string): Promise<Record<string, unknown[]>> {
  const rows = await tableRows();
  return Object.fromEntries(
    Object.entries(rows)
      .map(([table, list]) => [table, list.filter((row) => JSON.stringify(row).includes(userId))])
      .filter(([, list]) => (list as unknown[]).length > 0),
  );
}

/** Rows of every table owned by `userId` (a bystander): a merge must leave them exactly as they were. */
export async function ownedBy(userId: string) {
  return rowsMentioning(userId);
}
