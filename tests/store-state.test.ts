import { describe, expect, it } from "vitest";
import {
  appendEvents,
  createSession,
  createUser,
  getSession,
  listArtifacts,
  listSessions,
  loadArtifact,
  saveArtifact,
} from "@/lib/db/queries";
import { event, fixture } from "./helpers";

describe("state scopes (SPEC §1)", () => {
  it("session keys stay in the session; app: keys are shared by the agent; user: keys by the user", () => {
    const a = fixture();
    a.append(event("i1", { state: { color: "red", "app:motd": "hi", "user:name": "Ann", "temp:scratch": 1 } }));
    const sameUser = createSession(a.userId, {});
    const otherUser = createSession(createUser(), {});
    expect(getSession(a.userId, a.sessionId).state).toEqual({ color: "red", "app:motd": "hi", "user:name": "Ann" });
    expect(sameUser.state).toEqual({ "app:motd": "hi", "user:name": "Ann" });
    expect(otherUser.state).toEqual({ "app:motd": "hi" });
  });

  it("null deletes a key in every scope", () => {
    const a = fixture();
    a.append(event("i1", { state: { color: "red", "app:x": 1, "user:y": 2 } }));
    a.append(event("i2", { state: { color: null, "app:x": null, "user:y": null } }));
    expect(getSession(a.userId, a.sessionId).state).toEqual({});
  });

  it("initial state is split by scope at creation", () => {
    const userId = createUser();
    const s = createSession(userId, { state: { k: 1, "user:u": true, "temp:t": 0 } });
    expect(s.state).toEqual({ k: 1, "user:u": true });
  });

  it("sessions list most recently active first", () => {
    const userId = createUser();
    const first = createSession(userId, { name: "first" });
    createSession(userId, { name: "second" });
    appendEvents(userId, first.id, [{ ...event("i1"), timestamp: 1 }]);
    expect(listSessions(userId).map((s) => s.name)[0]).toBe("first");
  });
});

describe("artifacts (SPEC §1, §4.4)", () => {
  it("every save appends a version; latest and numbered versions load", () => {
    const a = fixture();
    expect(a.save("notes.txt", "one")).toEqual({ filename: "notes.txt", version: 0 });
    expect(a.save("notes.txt", "two")).toEqual({ filename: "notes.txt", version: 1 });
    expect(loadArtifact(a.userId, a.sessionId, "notes.txt").data.toString()).toBe("two");
    expect(loadArtifact(a.userId, a.sessionId, "notes.txt", 0).data.toString()).toBe("one");
    expect(listArtifacts(a.userId, a.sessionId)).toEqual([
      { filename: "notes.txt", version: 1, mime_type: "text/plain", size: 3, restored_from: null },
    ]);
    expect(() => loadArtifact(a.userId, a.sessionId, "notes.txt", 7)).toThrow("Artifact not found");
  });

  it("user: files are shared by the user's sessions of the agent, not by others", () => {
    const a = fixture();
    a.save("user:profile.md", "me");
    const sibling = createSession(a.userId, {});
    expect(loadArtifact(a.userId, sibling.id, "user:profile.md").data.toString()).toBe("me");
    const stranger = fixture();
    expect(() => loadArtifact(stranger.userId, stranger.sessionId, "user:profile.md")).toThrow();
  });

  it("rejects path traversal and control characters in filenames", () => {
    const a = fixture();
    for (const bad of ["../x", "a/b", "..", "a\\b", "x\u0000y", "", "user:"]) {
      expect(() => saveArtifact(a.userId, a.sessionId, { filename: bad, mimeType: "text/plain", data: Buffer.from("x") })).toThrow(
        "Invalid artifact filename",
      );
    }
  });

  it("an artifact_delta naming a missing version rejects the whole batch", () => {
    const a = fixture();
    a.save("f", "x");
    expect(() => appendEvents(a.userId, a.sessionId, [event("i1", { state: { k: 1 } }), event("i1", { artifacts: { f: 3 } })])).toThrow(
      "Artifact f has no version 3",
    );
    expect(getSession(a.userId, a.sessionId).state).toEqual({});
  });
});
