import { describe, expect, it } from "vitest";
import { sharedEvent, sharedTurns } from "@/lib/session/share-view";
import type { AdkEvent } from "@/lib/session/types";

describe("a share link's turns", () => {
  const events: AdkEvent[] = [
    {
      id: "1",
      invocation_id: "a",
      author: "user",
      timestamp: 1,
      content: { parts: [{ text: "set color to red" }] },
      actions: { state_delta: {} },
    },
    {
      id: "2",
      invocation_id: "a",
      author: "demo",
      timestamp: 1,
      content: { parts: [{ function_call: { id: "c", name: "update_state", args: { color: "red" } } }] },
    },
    {
      id: "3",
      invocation_id: "a",
      author: "demo",
      timestamp: 1,
      content: { parts: [{ function_response: { id: "c", name: "update_state", response: { ok: true } } }] },
      actions: { state_delta: { color: "red" }, artifact_delta: { "notes.txt": 0 } },
    },
    {
      id: "4",
      invocation_id: "a",
      author: "demo",
      timestamp: 1,
      content: { parts: [{ text: "Done" }, { inline_data: { mime_type: "x/y", data: "AA==" } }] },
    },
  ];

  const shown = (include: { includeTools: boolean; includeFiles: boolean }) => events.flatMap((e) => sharedEvent(e, include) ?? []);

  it("carry text only, unless tool calls are shared; never deltas or other parts", () => {
    expect(sharedTurns(shown({ includeTools: false, includeFiles: false }))).toEqual([
      { id: "a", user: "set color to red", attachments: [], agent: [{ text: "Done" }] },
    ]);
    const withTools = sharedTurns(shown({ includeTools: true, includeFiles: false }));
    expect(withTools[0].agent.map((p) => Object.keys(p)[0])).toEqual(["function_call", "function_response", "text"]);
    expect(JSON.stringify(withTools)).not.toContain("notes.txt");
  });

  it("hold only what the page shows: session state, shared files, known fields", () => {
    const event: AdkEvent = {
      id: "5",
      invocation_id: "b",
      author: "demo",
      timestamp: 2,
      branch: "secret-branch",
      custom_metadata: { note: "secret" },
      error_message: "secret endpoint said no",
      content: {
        role: "model",
        parts: [{ text: "Hi", thought_signature: "secret" }, { inline_data: { mime_type: "image/png", data: "AA==" } }],
      },
      actions: {
        state_delta: { color: "red", "user:secret": 1, "app:motd": "x" },
        artifact_delta: { "notes.txt": 0, "user:cv.pdf": 1 },
        escalate: true,
      },
    };
    expect(sharedEvent(event, { includeTools: false, includeFiles: false })).toEqual({
      id: "5",
      invocation_id: "b",
      author: "demo",
      timestamp: 2,
      content: { role: "model", parts: [{ text: "Hi" }] },
      actions: { state_delta: { color: "red" }, artifact_delta: {} },
    });
    expect(sharedEvent(event, { includeTools: false, includeFiles: true })?.actions?.artifact_delta).toEqual({ "notes.txt": 0 });
    // An image alone is nothing the page shows.
    expect(
      sharedEvent(
        { ...event, content: { parts: [{ inline_data: { mime_type: "image/png", data: "AA==" } }] }, actions: {} },
        {
          includeTools: true,
          includeFiles: true,
        },
      ),
    ).toBeNull();
  });
});
