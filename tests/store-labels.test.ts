import { describe, expect, it } from "vitest";
import {
  appendEvents,
  createSession,
  createUser,
  getSession,
  listArtifacts,
  listTasks,
  renameSession,
  rewindSession,
  saveTask,
} from "@/lib/db/queries";
import { event, fixture } from "./helpers";

const task = (sessionId: string, invocationId: string) => ({
  kind: "task" as const,
  id: `task-${invocationId}`,
  contextId: sessionId,
  status: { state: "completed" as const },
  metadata: { kagent_invocation_id: invocationId },
});

describe("automatic chat names", () => {
  it("an unnamed chat takes its first visible message as its name, and follows rewinds and undos", () => {
    const userId = createUser();
    const { id } = createSession(userId);
    expect(getSession(userId, id).name).toBe("New chat");
    const append = (invocationId: string, text: string) => appendEvents(userId, id, [event(invocationId, { author: "user", text })]);
    append("i1", "plan a trip to Lisbon in the spring with friends and family");
    expect(getSession(userId, id).name).toBe("plan a trip to Lisbon in the spring with…");
    append("i2", "second");
    const { event: marker } = rewindSession(userId, id, "i1");
    expect(getSession(userId, id).name).toBe("New chat");
    rewindSession(userId, id, marker.invocation_id, "undo");
    expect(getSession(userId, id).name).toBe("plan a trip to Lisbon in the spring with…");
    rewindSession(userId, id, "i1");
    append("i3", "something else");
    expect(getSession(userId, id).name).toBe("something else");
  });

  it("a name the user gave is never replaced", () => {
    const f = fixture();
    f.append(event("i1", { author: "user", text: "hello" }));
    renameSession(f.userId, f.sessionId, "Mine");
    rewindSession(f.userId, f.sessionId, "i1");
    expect(getSession(f.userId, f.sessionId).name).toBe("Mine");
  });
});

describe("what the UI labels", () => {
  it("a file a rewind brought back says which version it restored", () => {
    const f = fixture();
    f.append(event("i1", { artifacts: { [f.save("notes.txt", "one").filename]: 0 } }));
    f.append(event("i2", { artifacts: { [f.save("notes.txt", "two").filename]: 1 } }));
    const { event: marker } = rewindSession(f.userId, f.sessionId, "i2");
    expect(listArtifacts(f.userId, f.sessionId)).toMatchObject([{ filename: "notes.txt", version: 2, restored_from: 0 }]);
    rewindSession(f.userId, f.sessionId, marker.invocation_id, "undo");
    expect(listArtifacts(f.userId, f.sessionId)).toMatchObject([{ filename: "notes.txt", version: 3, restored_from: 1 }]);
  });

  it("rewound tasks say which marker hid them, when and why", () => {
    const f = fixture();
    for (const i of ["i1", "i2"]) {
      f.append(event(i, { author: "user", text: i }));
      saveTask(f.userId, f.sessionId, task(f.sessionId, i));
    }
    const { event: marker } = rewindSession(f.userId, f.sessionId, "i2", "edit");
    const [, hidden] = listTasks(f.userId, f.sessionId, { includeRewound: true });
    expect(hidden.metadata).toMatchObject({
      rewound: true,
      rewound_by: marker.invocation_id,
      rewound_reason: "edit",
      rewound_at: new Date(marker.timestamp * 1000).toISOString(),
    });
  });
});
