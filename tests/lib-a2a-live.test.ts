import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getTask } from "@/lib/db/queries";
import { legacyMessage, rpc, sseFrames, v1Message } from "./support/a2a";
import { newGuest, routes } from "./support/api";

/** Running turns over A2A (docs/semantics.md, "Turns"): Stop, subscribe, and readers that go away. */
let user: { user_id: string; token: string };
beforeEach(async () => {
  process.env.DEMO_WORD_DELAY_MS = "20";
  user = await newGuest();
});
afterEach(() => {
  delete process.env.DEMO_WORD_DELAY_MS;
});

const versions = [
  {
    name: "v0.3",
    header: undefined,
    stream: "message/stream",
    subscribe: "tasks/resubscribe",
    cancel: "tasks/cancel",
    message: legacyMessage,
  },
  { name: "v1.0", header: "1.0", stream: "SendStreamingMessage", subscribe: "SubscribeToTask", cancel: "CancelTask", message: v1Message },
] as const;

/** Opens a JSON-RPC stream and hands back a reader of its frames, one at a time. */
async function open(version: (typeof versions)[number], method: string, params: unknown) {
  const request = new Request("http://localhost/api/a2a/demo", {
    method: "POST",
    headers: {
      authorization: `Bearer ${user.token}`,
      "content-type": "application/json",
      ...(version.header ? { "a2a-version": version.header } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const response = await routes.a2a.POST(request, { params: Promise.resolve({ agent: "demo" }) });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next() {
      while (!buffer.includes("\n\n")) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += value;
      }
      const end = buffer.indexOf("\n\n");
      const frame = buffer.slice(0, end + 2);
      buffer = buffer.slice(end + 2);
      return sseFrames(frame)[0].result;
    },
    close: () => reader.cancel(),
  };
}

const taskIdOf = (first: { id?: string; task?: { id: string } }) => first.task?.id ?? first.id!;

for (const version of versions) {
  describe(`live turns over A2A ${version.name}`, () => {
    it("CancelTask stops a running turn; what streamed is kept, marked interrupted", async () => {
      const stream = await open(version, version.stream, { message: version.message("tell me something long") });
      const taskId = taskIdOf(await stream.next());
      await stream.next();
      const { json } = await rpc(user.token, version.cancel, { id: taskId }, { version: version.header });
      expect(json.result?.status?.state).toMatch(/^(canceled|TASK_STATE_CANCELED)$/);
      const stored = await getTask(user.user_id, taskId);
      expect(stored.status.state).toBe("canceled");
      expect(stored.history!.at(-1)!.metadata).toMatchObject({ kagent_interrupted: true });
      const again = await rpc(user.token, version.cancel, { id: taskId }, { version: version.header });
      expect(again.json.result?.status?.state).toMatch(/^(canceled|TASK_STATE_CANCELED)$/);
      await stream.close();
    });

    it("a reader that goes away does not stop the turn; subscribing streams the rest of it", async () => {
      const stream = await open(version, version.stream, { message: version.message("hello there, how are you") });
      const taskId = taskIdOf(await stream.next());
      await stream.next();
      await stream.close();

      const subscription = await open(version, version.subscribe, { id: taskId });
      const events = [];
      for (let event = await subscription.next(); event; event = await subscription.next()) events.push(event);
      expect(taskIdOf(events[0])).toBe(taskId);
      const last = events.at(-1);
      expect(last.statusUpdate?.status.state ?? last.status.state).toMatch(/^(completed|TASK_STATE_COMPLETED)$/);
      expect((await getTask(user.user_id, taskId)).status.state).toBe("completed");
    });
  });
}
