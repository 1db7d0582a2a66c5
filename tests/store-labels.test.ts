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
import { completedTask, event, fixture } from "./helpers";

describe("automatic chat names", () => {
  it("an unnamed chat takes its first visible message as its name, and follows rewinds and undos", async () => {
    const userId = await createUser();
    const { id } = await createSession(userId);
    const name = async () => (await getSession(userId, id)).name;
    const append = (invocationId: string, text: string) => appendEvents(userId, id, [event(invocationId, { author: "user", text })]);
    expect(await name()).toBe("New chat");
    await append("i1", "plan a trip to Lisbon in the spring with friends and family");
    expect(await name()).toBe("plan a trip to Lisbon in the spring with…");
    await append("i2", "second");
    const { event: marker } = await rewindSession(userId, id, "i1");
    expect(await name()).toBe("New chat");
    await rewindSession(userId, id, marker.invocation_id, "undo");
    expect(await name()).toBe("plan a trip to Lisbon in the spring with…");
    await rewindSession(userId, id, "i1");
    await append("i3", "something else");
    expect(await name()).toBe("something else");
  });

  it("a name the user gave is never replaced", async () => {
    const f = await fixture();
    await f.append(event("i1", { author: "user", text: "hello" }));
    await renameSession(f.userId, f.sessionId, "Mine");
    await rewindSession(f.userId, f.sessionId, "i1");
    expect((await getSession(f.userId, f.sessionId)).name).toBe("Mine");
  });
});

describe("what the UI labels", () => {
  it("a file a rewind brought back says which version it restored", async () => {
    const f = await fixture();
    await f.append(event("i1", { artifacts: { [(await f.save("notes.txt", "one")).filename]: 0 } }));
    await f.append(event("i2", { artifacts: { [(await f.save("notes.txt", "two")).filename]: 1 } }));
    const { event: marker } = await rewindSession(f.userId, f.sessionId, "i2");
    expect(await listArtifacts(f.userId, f.sessionId)).toMatchObject([{ filename: "notes.txt", version: 2, restored_from: 0 }]);
    await rewindSession(f.userId, f.sessionId, marker.invocation_id, "undo");
    expect(await listArtifacts(f.userId, f.sessionId)).toMatchObject([{ filename: "notes.txt", version: 3, restored_from: 1 }]);
  });

  it("rewound tasks say which marker hid them, when and why", async () => {
    const f = await fixture();
    for (const i of ["i1", "i2"]) {
      await f.append(event(i, { author: "user", text: i }));
      await saveTask(f.userId, f.sessionId, completedTask(f.sessionId, i));
    }
    const { event: marker } = await rewindSession(f.userId, f.sessionId, "i2", "edit");
    const [, hidden] = (await listTasks(f.userId, f.sessionId, { includeRewound: true })).items;
    expect(hidden.metadata).toMatchObject({
      rewound: true,
      rewound_by: marker.invocation_id,
      rewound_reason: "edit",
      rewound_at: new Date(marker.timestamp * 1000).toISOString(),
    });
  });
});
