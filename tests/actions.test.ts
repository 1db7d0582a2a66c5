import { beforeEach, describe, expect, it, vi } from "vitest";
import { deleteChat, forkChat, renameChat, rewindChat } from "@/lib/api/chat-actions";
import { call, guestWithChat, newGuest, routes, snapshot } from "./support/api";

// Server actions read the caller from the request headers; here the headers are the test's, the store is real.
let authorization: string | null = null;
vi.mock("next/headers", () => ({ headers: async () => new Headers(authorization ? { authorization } : {}) }));
// The paths an action revalidates through Next.js's cache API (outside Next.js there is no cache to drop).
const revalidated: string[] = [];
vi.mock("next/cache", () => ({ revalidatePath: (path: string) => revalidated.push(path) }));

const as = (token: string | null) => (authorization = token ? `Bearer ${token}` : null);

describe("server actions", () => {
  beforeEach(() => {
    as(null);
    revalidated.length = 0;
  });

  it("do their work for the owner", async () => {
    const alice = await guestWithChat();
    as(alice.token);
    const sessionId = alice.sessionId;
    expect(await renameChat({ sessionId, name: "Renamed" })).toMatchObject({ ok: true, data: { name: "Renamed" } });
    const rewound = await rewindChat({ sessionId, invocationId: alice.invocations[1] });
    expect(rewound).toMatchObject({ ok: true, data: { state: { color: "red" } } });
    expect(await forkChat({ sessionId, invocationId: alice.invocations[0] })).toMatchObject({
      ok: true,
      data: { name: "Fork of Renamed" },
    });
    expect(await deleteChat({ sessionId })).toEqual({ ok: true, data: { id: sessionId } });
  });

  it("rewind and fork revalidate the chat's page (its server render is stale); a refused one does not", async () => {
    const alice = await guestWithChat();
    as(alice.token);
    const { sessionId, invocations } = alice;
    expect(await rewindChat({ sessionId, invocationId: invocations[1] })).toMatchObject({ ok: true });
    expect(revalidated).toEqual([`/chat/${sessionId}`]);
    expect(await forkChat({ sessionId, invocationId: invocations[0] })).toMatchObject({ ok: true });
    expect(revalidated).toEqual([`/chat/${sessionId}`, `/chat/${sessionId}`]);
    as((await newGuest()).token);
    expect(await rewindChat({ sessionId, invocationId: invocations[0] })).toMatchObject({ ok: false, code: "not_found" });
    expect(await forkChat({ sessionId })).toMatchObject({ ok: false, code: "not_found" });
    expect(revalidated).toHaveLength(2);
  });

  it("Restore is a rewind before the marker that hid the turns, recorded as a restore", async () => {
    const alice = await guestWithChat();
    as(alice.token);
    const { sessionId, invocations } = alice;
    const rewound = await rewindChat({ sessionId, invocationId: invocations[1], reason: "rewind" });
    if (!rewound.ok) throw new Error(rewound.error);
    const restored = await rewindChat({ sessionId, invocationId: rewound.data.markerInvocationId, reason: "restore" });
    expect(restored).toMatchObject({ ok: true, data: { state: { color: "blue" } } });
    const { json } = await call(routes.tasks.GET, { token: alice.token, params: { id: sessionId } });
    expect(json.data.map((t: { metadata: { kagent_invocation_id: string } }) => t.metadata.kagent_invocation_id)).toEqual(invocations);
    const events = await call(routes.events.GET, { token: alice.token, params: { id: sessionId } });
    expect(events.json.data.at(-1)).toMatchObject({
      actions: { rewind_before_invocation_id: rewound.data.markerInvocationId },
      custom_metadata: { retrace_reason: "restore" },
    });
    expect(await rewindChat({ sessionId, invocationId: invocations[0], reason: "bogus" as never })).toMatchObject({
      ok: false,
      code: "invalid_request",
    });
  });

  it("refuse another user's chat with not_found, and without auth with unauthorized; nothing changes", async () => {
    const alice = await guestWithChat();
    const bob = await newGuest();
    const sessionId = alice.sessionId;
    const before = await snapshot();
    const attempts = [
      () => renameChat({ sessionId, name: "taken" }),
      () => deleteChat({ sessionId }),
      () => rewindChat({ sessionId, invocationId: alice.invocations[0] }),
      () => forkChat({ sessionId, invocationId: alice.invocations[0] }),
      () => forkChat({ sessionId }),
    ];
    for (const [token, code] of [
      [bob.token, "not_found"],
      [null, "unauthorized"],
      ["forged.token.value", "unauthorized"],
    ] as const) {
      as(token);
      for (const attempt of attempts) expect(await attempt()).toMatchObject({ ok: false, code });
    }
    expect(await snapshot()).toEqual(before);
  });

  it("reject bad input with a clear message and write nothing", async () => {
    const alice = await guestWithChat();
    as(alice.token);
    const before = await snapshot();
    expect(await renameChat({ sessionId: alice.sessionId, name: " " })).toMatchObject({ ok: false, code: "invalid_request" });
    expect(await rewindChat({ sessionId: alice.sessionId, invocationId: "e-ghost" })).toEqual({
      ok: false,
      code: "invocation_not_found",
      error: "Invocation ID not found: e-ghost",
    });
    expect(await forkChat({ sessionId: alice.sessionId, invocationId: "e-ghost" })).toMatchObject({
      ok: false,
      code: "invocation_not_found",
    });
    expect(await rewindChat({ sessionId: 5 as never, invocationId: "x" })).toMatchObject({ ok: false, code: "invalid_request" });
    expect(await snapshot()).toEqual(before);
  });
});
