import { describe, expect, it } from "vitest";
import { conversationToChat } from "@/lib/archive/chatgpt";
import { ValidationError } from "@/lib/errors";
import { branchy, conversation, LOOPS } from "./support/chatgpt";

/** Deterministic ids: invocations i1, i2, … */
function ids() {
  let i = 0;
  let e = 0;
  return { invocation: () => `i${++i}`, event: () => `ev${++e}` };
}

/** Each op in short: a turn as its user text → what the agent did; a rewind as ↶ its target. */
function summary(input: unknown) {
  return conversationToChat(input, "demo", ids()).ops.map((op) =>
    op.kind === "rewind"
      ? `↶ ${op.before} (${op.reason})`
      : `${op.invocationId}: ${op.events
          .map((e) => {
            const part = e.content?.parts?.[0];
            return part?.function_call ? `call ${part.function_call.name}` : part?.function_response ? "result" : part?.text;
          })
          .join(" → ")}`,
  );
}

describe("ChatGPT conversations as Retrace operations", () => {
  it("keeps every branch, each alternative a sibling reached by a rewind, the shown branch last", () => {
    expect(summary(branchy())).toEqual([
      "i1: What is 2+2? → 4",
      "i4: And 3+3? → 6",
      "↶ i1 (edit)",
      "i3: What is 2+3? → call python → result → It is 5.",
      "↶ i3 (edit)",
      "i2: What is 2+2? → Four.",
      "i5: Thanks! → You're welcome.",
    ]);
  });

  it("carries names, times, tool calls and attachments as the export has them", () => {
    const chat = conversationToChat(branchy(), "demo", ids());
    expect(chat.name).toBe("Arithmetic");
    expect(chat.createdAt).toBe(1_735_000_000);
    const edited = chat.ops.find((op) => op.kind === "turn" && op.invocationId === "i3");
    if (edited?.kind !== "turn") throw new Error("no edited turn");
    expect(edited.attachments).toEqual([{ id: "file-AbC123", name: "sum.png", mimeType: "image/png" }]);
    expect(edited.events.map((e) => [e.author, e.content?.role, e.turn_complete ?? null])).toEqual([
      ["user", "user", null],
      ["demo", "model", null],
      ["demo", "user", null],
      ["demo", "model", true],
    ]);
    expect(edited.events[1].content?.parts?.[0].function_call).toEqual({ id: "c1", name: "python", args: { input: "print(2+3)" } });
    expect(edited.events[2].content?.parts?.[0].function_response).toEqual({ id: "t1", name: "python", response: { output: "5" } });
    expect(edited.events[0].custom_metadata).toEqual({ chatgpt_message_id: "u1e" });
    expect(edited.events[0].timestamp).toBe(1_735_000_090);
  });

  it("calls two answers to one question a regeneration, and orders by the export when no branch is marked", () => {
    const regenerated = conversation(
      "Poem",
      [
        { id: "u", parent: null, role: "user", text: "A haiku" },
        { id: "a", parent: "u", role: "assistant", text: "First" },
        { id: "b", parent: "u", role: "assistant", text: "Second" },
        { id: "c", parent: "u", role: "assistant", text: "Third" },
      ],
      "b",
    );
    expect(summary(regenerated)).toEqual([
      "i1: A haiku → First",
      "↶ i1 (regenerate)",
      "i3: A haiku → Third",
      "↶ i3 (regenerate)",
      "i2: A haiku → Second",
    ]);
    expect(summary({ ...regenerated, current_node: "gone" })).toEqual([
      "i1: A haiku → First",
      "↶ i1 (regenerate)",
      "i2: A haiku → Second",
      "↶ i2 (regenerate)",
      "i3: A haiku → Third",
    ]);
  });

  it("leaves out what ChatGPT hides: the system prompt, custom instructions and reasoning", () => {
    const hidden = conversation(
      "Hidden",
      [
        { id: "root", parent: null },
        { id: "sys", parent: "root", role: "system", text: "You are ChatGPT", hidden: true },
        { id: "ctx", parent: "sys", role: "user", text: "about me", contentType: "user_editable_context" },
        { id: "u", parent: "ctx", role: "user", text: "Hello" },
        { id: "th", parent: "u", role: "assistant", text: "thinking", contentType: "thoughts" },
        { id: "a", parent: "th", role: "assistant", text: "Hi!" },
      ],
      "a",
    );
    expect(summary(hidden)).toEqual(["i1: Hello → Hi!"]);
  });

  it("walks a long conversation without recursion", () => {
    type Node = { id: string; parent: string | null; role: "user" | "assistant"; text: string };
    const specs: Node[] = [{ id: "n0", parent: null, role: "user", text: "q0" }];
    for (let i = 1; i < 20_000; i++) specs.push({ id: `n${i}`, parent: `n${i - 1}`, role: i % 2 ? "assistant" : "user", text: `m${i}` });
    expect(summary(conversation("Long", specs, "n19999"))).toHaveLength(10_000);
  });

  it("refuses what is not a conversation", () => {
    expect(() => conversationToChat({ title: "x" }, "demo")).toThrow(/Not a ChatGPT conversation/);
  });

  it("refuses a mapping that is not a tree, whatever the loop, at once", () => {
    for (const [shape, mapping] of Object.entries(LOOPS)) {
      const started = performance.now();
      expect(() => conversationToChat({ title: shape, mapping, current_node: null }, "demo"), shape).toThrow(ValidationError);
      expect(() => conversationToChat({ title: shape, mapping }, "demo"), shape).toThrow(/loop/);
      expect(performance.now() - started, shape).toBeLessThan(100);
    }
  });

  it("refuses branches that would repeat more than 10,000 messages (a small export must not become millions of events)", () => {
    // A comb: every reply of a long chain regenerated once, so each of its answers repeats the chain above it.
    const comb = (teeth: number) => {
      const specs: Parameters<typeof conversation>[1] = [{ id: "u", parent: null, role: "user", text: "go" }];
      for (let i = 0; i < teeth; i++) {
        specs.push({ id: `a${i}`, parent: i ? `a${i - 1}` : "u", role: "assistant", text: `step ${i}` });
        specs.push({ id: `b${i}`, parent: i ? `a${i - 1}` : "u", role: "assistant", text: `other ${i}` });
      }
      return conversation("Comb", specs, "u");
    };
    expect(conversationToChat(comb(100), "demo").ops.filter((op) => op.kind === "turn")).toHaveLength(101);
    expect(() => conversationToChat(comb(300), "demo")).toThrow(/repeat more than 10,000 messages/);
  });
});
