import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeConnections } from "@/lib/agent/mcp/connections";
import { startTurn } from "@/lib/agent/runtime";
import type { McpServerConfig } from "@/lib/config";
import { getTask, listEvents } from "@/lib/db/queries";
import type { AdkEvent } from "@/lib/session/types";
import { fixture } from "./helpers";
import { caller, type HttpToolServer, httpConfig, httpToolServer, stdioToolServer } from "./support/mcp-servers";
import { STALL_LIMIT_MS, withProbe } from "./support/stall";

const toolEvents = async (f: { userId: string; sessionId: string }) =>
  (await listEvents(f.userId, f.sessionId, "all")).items.filter((e: AdkEvent) =>
    e.content?.parts?.some((p) => p.function_call || p.function_response),
  );

let http: HttpToolServer;
const configs: McpServerConfig[] = [];
const configured = (config: McpServerConfig) => {
  configs.push(config);
  return config;
};
beforeAll(async () => {
  http = await httpToolServer({ token: "s3cret", hangMs: 5_000 });
});
afterAll(async () => {
  await closeConnections(configs);
  await http.close();
});

describe("MCP tool servers", () => {
  it("an HTTP server's call runs, is stored as ADK call and response events marked external, and reaches the server once", async () => {
    const f = await fixture();
    const server = configured(
      httpConfig(http, { transport: { kind: "http", url: http.url, headers: { Authorization: "Bearer s3cret" } } }),
    );
    const agent = caller([server], [{ name: "world__record", args: { note: "one" } }]);
    const task = await (await startTurn({ ...f, agent, text: "go" })).done;
    expect(task.status.state).toBe("completed");
    expect(http.calls).toEqual(["one"]);
    expect(agent.answered).toEqual([[{ result: "recorded one" }]]);
    const [call, response] = await toolEvents(f);
    expect(call.content?.parts?.[0].function_call).toMatchObject({ name: "world__record", args: { note: "one" } });
    expect(call.custom_metadata).toEqual({ retrace_tool: { server: "world", tool: "record", external: true } });
    expect(response.custom_metadata).toEqual({ retrace_tool: { server: "world", tool: "record", external: true, executed: true } });
    const stored = await getTask(f.userId, task.id);
    expect(stored.metadata?.retrace_external_calls).toBe(1);
    const message = stored.history?.find((m) => m.parts[0]?.metadata?.kagent_type === "function_response");
    expect(message?.parts[0].metadata).toEqual({ kagent_type: "function_response", retrace_external: true, retrace_executed: true });
  });

  it("a read-only tool is not external; an error result, a refused (never) tool and non-text content are tool errors or summaries the model sees", async () => {
    const f = await fixture();
    const before = http.calls.length;
    const server = configured(
      httpConfig(http, {
        name: "w2",
        transport: { kind: "http", url: http.url, headers: { Authorization: "Bearer s3cret" } },
        tools: { record: "never" },
      }),
    );
    const agent = caller(
      [server],
      [
        { name: "w2__peek", args: {} },
        { name: "w2__fail", args: {} },
        { name: "w2__record", args: { note: "refused" } },
        { name: "w2__image", args: {} },
        { name: "w2__missing", args: {} },
      ],
    );
    const task = await (await startTurn({ ...f, agent, text: "go" })).done;
    expect(task.status.state).toBe("completed");
    expect(http.calls.length).toBe(before);
    const [peek, fail, refused, image, missing] = agent.answered[0];
    expect(peek).toEqual({ result: `${before} notes` });
    expect(fail).toEqual({ error: "it broke" });
    expect(refused.error).toMatch(/not allowed: the operator refused it/);
    expect(image).toEqual({ result: "[image image/png, about 300 bytes]" });
    expect(missing).toEqual({ error: "Unknown tool: w2__missing" });
    const events = await toolEvents(f);
    expect(events[0].custom_metadata).toEqual({ retrace_tool: { server: "w2", tool: "peek", external: false } });
    expect(events.find((e) => e.content?.parts?.[0].function_response?.name === "w2__record")?.custom_metadata).toEqual({
      retrace_tool: { server: "w2", tool: "record", external: true, executed: false },
    });
    // fail and image are not read-only: they reached the world (an error answered too).
    expect((await getTask(f.userId, task.id)).metadata?.retrace_external_calls).toBe(2);
  });

  it("a server that hangs ends its call as a tool error at its timeout, while other users wait under the stall limit", async () => {
    const f = await fixture();
    const server = configured(
      httpConfig(http, {
        name: "slow",
        transport: { kind: "http", url: http.url, headers: { Authorization: "Bearer s3cret" } },
        timeoutMs: 600,
      }),
    );
    const agent = caller([server], [{ name: "slow__hang", args: {} }]);
    const { result: task, ms, worstMs } = await withProbe(async () => (await startTurn({ ...f, agent, text: "go" })).done);
    expect(task.status.state).toBe("completed");
    expect(agent.answered[0][0].error).toMatch(/The tool server slow failed: .*timed out/i);
    expect(ms).toBeGreaterThanOrEqual(550);
    expect(worstMs).toBeLessThan(STALL_LIMIT_MS);
  });

  it("a wrong token: the server is unreachable, its tools are left out of the turn, nothing reached it", async () => {
    const f = await fixture();
    const server = configured(
      httpConfig(http, { name: "denied", transport: { kind: "http", url: http.url, headers: { Authorization: "Bearer wrong" } } }),
    );
    const agent = caller([server], [{ name: "denied__record", args: { note: "x" } }]);
    const before = http.calls.length;
    await (await startTurn({ ...f, agent, text: "go" })).done;
    expect(agent.answered[0][0]).toEqual({ error: "Unknown tool: denied__record" });
    expect(http.calls.length).toBe(before);
  });

  it("a stdio server: calls counted; one that dies mid-call is a tool error, and the next call starts it again", async () => {
    const f = await fixture();
    const stdio = stdioToolServer();
    const server = configured(stdio.config);
    const first = caller(
      [server],
      [
        { name: "local__record", args: { note: "a" } },
        { name: "local__die", args: {} },
      ],
    );
    await (await startTurn({ ...f, agent: first, text: "go" })).done;
    expect(first.answered[0][0]).toEqual({ result: "recorded a" });
    expect(first.answered[0][1].error).toMatch(/The tool server local failed/);
    const second = caller([server], [{ name: "local__record", args: { note: "b" } }]);
    await (await startTurn({ ...f, agent: second, text: "again" })).done;
    expect(second.answered[0][0]).toEqual({ result: "recorded b" });
    expect(stdio.calls()).toEqual(["a", "b"]);
  });

  it("a tool the server adds is offered once it says its list changed", async () => {
    const f = await fixture();
    const server = configured(
      httpConfig(http, { name: "grow", transport: { kind: "http", url: http.url, headers: { Authorization: "Bearer s3cret" } } }),
    );
    const before = caller([server], [{ name: "grow__fresh", args: {} }]);
    await (await startTurn({ ...f, agent: before, text: "go" })).done;
    expect(before.answered[0][0]).toEqual({ error: "Unknown tool: grow__fresh" });
    http.addTool("fresh");
    await expect
      .poll(async () => {
        const after = caller([server], [{ name: "grow__fresh", args: {} }]);
        await (await startTurn({ ...f, agent: after, text: "go" })).done;
        return after.answered[0][0];
      })
      .toEqual({ result: "fresh" });
  });
});
