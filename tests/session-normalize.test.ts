import { describe, expect, it } from "vitest";
import { normalizeEvent } from "@/lib/session/normalize";

describe("event normalisation", () => {
  const snake = {
    id: "ev1",
    invocation_id: "e-1",
    author: "demo",
    timestamp: 12.5,
    content: { role: "model", parts: [{ function_call: { id: "c1", name: "update_state", args: { someKey: 1 } } }] },
    actions: { state_delta: { myKey: "v" }, artifact_delta: {} },
  };

  it("keeps snake_case events as they are", () => {
    expect(normalizeEvent(snake)).toEqual(snake);
  });

  it("converts camelCase structure but never user keys (state, args)", () => {
    const camel = {
      id: "ev1",
      invocationId: "e-1",
      author: "demo",
      timestamp: 12.5,
      content: { role: "model", parts: [{ functionCall: { id: "c1", name: "update_state", args: { someKey: 1 } } }] },
      actions: { stateDelta: { myKey: "v" }, artifactDelta: {} },
    };
    expect(normalizeEvent(camel)).toEqual(snake);
  });

  it("unwraps kagent's {id, data} form, taking the outer id when the event has none", () => {
    expect(normalizeEvent({ id: "ev1", data: JSON.stringify(snake) })).toEqual(snake);
    const { id: _, ...withoutId } = snake;
    expect(normalizeEvent({ id: "outer-1", data: JSON.stringify(withoutId) }).id).toBe("outer-1");
  });

  it("fills in id, timestamp and empty deltas", () => {
    const event = normalizeEvent({ invocation_id: "e-1", author: "user", content: { parts: [{ text: "hi" }] } });
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.timestamp).toBeGreaterThan(1_600_000_000);
    expect(event.actions).toEqual({ state_delta: {}, artifact_delta: {} });
  });

  it.each([
    ["not an object", "hello"],
    ["an array", [1]],
    ["no invocation id", { author: "user" }],
    ["no author", { invocation_id: "e-1" }],
    ["a bad artifact version", { invocation_id: "e-1", author: "a", actions: { artifact_delta: { f: -1 } } }],
    ["a non-numeric timestamp", { invocation_id: "e-1", author: "a", timestamp: "now" }],
    ["kagent data that is not JSON", { id: "x", data: "{nope" }],
  ])("rejects %s", (_, input) => {
    expect(() => normalizeEvent(input)).toThrow();
  });
});
