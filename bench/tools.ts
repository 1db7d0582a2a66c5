/**
 * `npm run bench -- --tools` (`--db postgres` for two instances): what the approval gate adds to a tool call
 * (in-process, against a real MCP server over HTTP), and how long a decision given on instance B takes to reach
 * a tab on instance A as the resumed turn streaming (the tab polls a waiting chat, then follows the turn).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { issueToken } from "@/lib/accounts/guest-token";
import { callTool, closeConnections } from "@/lib/agent/mcp/connections";
import { toolbox } from "@/lib/agent/toolbox";
import type { McpServerConfig } from "@/lib/config";
import { createUser } from "@/lib/db/queries";
import { ALWAYS_ALLOW_KEY } from "@/lib/session/tools";
import { sseFrames } from "../e2e/support/api-client";
import { middle, p95 } from "./measure";

const CALLS = 400;
const RESUMES = 20;
/** How often the chat page reads a waiting chat's session (components/chat/chat.tsx). */
const DECISION_POLL_MS = 400;

const p99 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(times.length * 0.99))];

/** A stateless MCP server over HTTP with one tool that answers at once. */
async function echoServer() {
  const http = createServer(async (req, res) => {
    const server = new McpServer({ name: "bench", version: "1.0.0" });
    server.registerTool("echo", { description: "Echo." }, async () => ({ content: [{ type: "text", text: "ok" }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, close: () => new Promise((r) => http.close(r)) };
}

/** The gate (the approval of an `ask` tool the chat's state allows) against the call it guards, in ms. */
async function gate() {
  const echo = await echoServer();
  const server: McpServerConfig = {
    name: "bench",
    transport: { kind: "http", url: echo.url, headers: {} },
    approval: "ask",
    tools: {},
    timeoutMs: 10_000,
  };
  const userId = await createUser();
  const state = { [ALWAYS_ALLOW_KEY]: ["bench__echo"] };
  const tools = toolbox([server]);
  await tools.specs();
  const gated: number[] = [];
  const calls: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    let t = performance.now();
    const plan = await tools.plan("bench__echo", state);
    gated.push(performance.now() - t);
    if (plan.kind !== "mcp" || plan.approval !== "always") throw new Error("the chat's always-allow was not read");
    t = performance.now();
    await callTool(server, "echo", {}, { userId, signal: new AbortController().signal });
    calls.push(performance.now() - t);
  }
  await closeConnections([server]);
  await echo.close();
  return { gateP50: middle(gated), gateP99: p99(gated), callP50: middle(calls), callP99: p99(calls) };
}

async function rpc(base: string, token: string, method: string, params: unknown): Promise<Response> {
  return fetch(`${base}/api/a2a/demo`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}
const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  kind: "message",
  role: "user",
  messageId: crypto.randomUUID(),
  parts,
  ...extra,
});

/** One round: a turn pauses on A; B gets the approval; a tab on A polls the chat, then follows the resumed turn to its first frame. */
async function resumeOnce(a: string, b: string, token: string): Promise<number> {
  let taskId = "";
  let contextId = "";
  for await (const frame of sseFrames(
    await rpc(a, token, "message/stream", { message: message([{ kind: "text", text: "add todo bench" }]) }),
  )) {
    const result = frame.result as { id?: string; contextId?: string; kind?: string };
    if (result.kind === "task") ({ id: taskId, contextId } = result as { id: string; contextId: string });
  }
  // The tab: reads the waiting task every DECISION_POLL_MS (its first read at a random point of the interval);
  // once it runs again it follows it (SubscribeToTask) to its first frame, or shows it ended.
  const tab = async () => {
    await new Promise((r) => setTimeout(r, DECISION_POLL_MS * Math.random()));
    for (;;) {
      const read = (await (await rpc(a, token, "tasks/get", { id: taskId })).json()) as { result: { status: { state: string } } };
      const state = read.result.status.state;
      if (state === "working") {
        for await (const _ of sseFrames(await rpc(a, token, "tasks/resubscribe", { id: taskId }))) break;
        return performance.now();
      }
      if (state !== "input-required") return performance.now();
      await new Promise((r) => setTimeout(r, DECISION_POLL_MS));
    }
  };
  const start = performance.now();
  const shown = tab();
  const decided = rpc(b, token, "message/send", {
    message: message([{ kind: "data", data: { decision_type: "approve" } }], { taskId, contextId }),
  });
  const at = await shown;
  await (await decided).json();
  return at - start;
}

export async function toolsBench(bases: string[]) {
  const figures = await gate();
  const userId = await createUser();
  const token = await issueToken(userId);
  const [a, b] = [bases[0], bases.at(-1) as string];
  await resumeOnce(a, b, token);
  const resumes: number[] = [];
  for (let i = 0; i < RESUMES; i++) resumes.push(await resumeOnce(a, b, token));
  return { ...figures, instances: bases.length, resumeP50: middle(resumes), resumeP95: p95(resumes), rounds: RESUMES };
}
