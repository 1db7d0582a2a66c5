import "server-only";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "@/lib/config";
import { todoServer, USER_META } from "./todo-server";

/**
 * One open MCP client per configured server and app instance: opened on first use, kept, and dropped when its
 * transport closes or fails (a dead stdio process, an HTTP server gone), so the next use opens a new one. Its
 * tool list is read once and read again when the server says it changed (`notifications/tools/list_changed`).
 */
interface Connection {
  client: Client;
  tools: Tool[];
}

// On globalThis so every Next.js bundle shares one connection per server; keyed by the configuration object.
const perProcess = globalThis as typeof globalThis & { __retraceMcp?: WeakMap<McpServerConfig, Promise<Connection>> };
perProcess.__retraceMcp ??= new WeakMap();
const connections = perProcess.__retraceMcp;

function transportOf(server: McpServerConfig): Transport {
  const t = server.transport;
  if (t.kind === "http") return new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers: t.headers } });
  if (t.kind === "stdio")
    return new StdioClientTransport({ command: t.command, args: t.args, env: { ...getDefaultEnvironment(), ...t.env } });
  const [client, served] = InMemoryTransport.createLinkedPair();
  void todoServer().connect(served);
  return client;
}

async function listAll(client: Client, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

async function open(server: McpServerConfig): Promise<Connection> {
  const connection = { tools: [] } as unknown as Connection;
  connection.client = new Client(
    { name: "retrace", version: "1.0.0" },
    {
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (!error && tools) connection.tools = tools;
          },
        },
      },
    },
  );
  const opened = (async () => {
    await connection.client.connect(transportOf(server), { timeout: server.timeoutMs });
    connection.tools = await listAll(connection.client, server.timeoutMs);
    return connection;
  })();
  const forget = () => {
    if (connections.get(server) === opened) connections.delete(server);
  };
  connection.client.onclose = forget;
  connections.set(server, opened);
  opened.catch(() => {
    forget();
    void connection.client.close().catch(() => undefined);
  });
  return opened;
}

const connection = (server: McpServerConfig) => connections.get(server) ?? open(server);

/** The server could not be reached at all: no call was sent to it. */
export class ToolServerUnreachable extends Error {
  override name = "ToolServerUnreachable";
}

/** The server's tools, as last listed. */
export async function serverTools(server: McpServerConfig): Promise<Tool[]> {
  return (await connection(server)).tools;
}

/**
 * Calls a tool; a slow server is given up on after the server's `timeoutMs` (the SDK then tells it the call is
 * cancelled). Rejects with the transport's or the server's error; a connection that failed is reopened next time.
 */
export async function callTool(
  server: McpServerConfig,
  tool: string,
  args: Record<string, unknown>,
  opts: { userId: string; signal: AbortSignal },
): Promise<CallToolResult> {
  const { client } = await connection(server).catch((error: unknown) => {
    throw new ToolServerUnreachable(error instanceof Error ? error.message : String(error));
  });
  const meta = server.transport.kind === "builtin" ? { _meta: { [USER_META]: opts.userId } } : {};
  // A signal of its own per call: the SDK never removes the listener it adds, and a turn's signal sees many calls.
  const call = new AbortController();
  const abort = () => call.abort(opts.signal.reason);
  opts.signal.addEventListener("abort", abort, { once: true });
  try {
    return (await client.callTool({ name: tool, arguments: args, ...meta }, undefined, {
      timeout: server.timeoutMs,
      signal: call.signal,
    })) as CallToolResult;
  } finally {
    opts.signal.removeEventListener("abort", abort);
  }
}

/** Closes every open connection (tests; a stdio server's process ends with it). */
export async function closeConnections(servers: McpServerConfig[]): Promise<void> {
  for (const server of servers) {
    const open = connections.get(server);
    connections.delete(server);
    await open?.then((c) => c.client.close()).catch(() => undefined);
  }
}
