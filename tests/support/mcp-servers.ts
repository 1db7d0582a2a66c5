/** Real MCP tool servers for the tests, counting the calls that reach them: streamable HTTP on a random port, and stdio. */
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import type { Agent, CallResponses } from "@/lib/agent/types";
import type { McpServerConfig } from "@/lib/config";
import type { FunctionCall } from "@/lib/session/tools";

export interface HttpToolServer {
  url: string;
  /** The notes `record` received, in order: every call that reached the world. */
  calls: string[];
  /** Adds a tool at run time; the server tells its clients their list changed. */
  addTool(name: string): void;
  close(): Promise<void>;
}

/**
 * Tools: `record` (acts in the world, counted), `peek` (annotated read-only), `fail` (answers an error), `hang`
 * (answers after `hangMs`), `image` (non-text content). Stateful sessions, so list-changed notifications reach the client.
 */
export async function httpToolServer(opts: { token?: string; hangMs?: number } = {}): Promise<HttpToolServer> {
  const calls: string[] = [];
  const servers = new Set<McpServer>();
  const extra: string[] = [];
  const build = () => {
    const server = new McpServer({ name: "test-http", version: "1.0.0" });
    server.registerTool("record", { description: "Record a note in the world.", inputSchema: { note: z.string() } }, async ({ note }) => {
      calls.push(note);
      return { content: [{ type: "text", text: `recorded ${note}` }] };
    });
    server.registerTool("peek", { description: "Read only.", annotations: { readOnlyHint: true } }, async () => ({
      content: [{ type: "text", text: `${calls.length} notes` }],
    }));
    server.registerTool("fail", { description: "Always fails." }, async () => ({
      content: [{ type: "text", text: "it broke" }],
      isError: true,
    }));
    server.registerTool("hang", { description: "Answers late." }, async () => {
      await new Promise((r) => setTimeout(r, opts.hangMs ?? 60_000));
      return { content: [{ type: "text", text: "late" }] };
    });
    server.registerTool("image", { description: "An image." }, async () => ({
      content: [{ type: "image", data: Buffer.alloc(300).toString("base64"), mimeType: "image/png" }],
    }));
    for (const name of extra)
      server.registerTool(name, { description: `added ${name}` }, async () => ({ content: [{ type: "text", text: name }] }));
    servers.add(server);
    return server;
  };
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http: Server = createServer(async (req, res) => {
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) return res.writeHead(401).end("unauthorized");
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? transports.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => void transports.set(sid, transport as StreamableHTTPServerTransport),
      });
      await build().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    addTool(name) {
      extra.push(name);
      for (const server of servers)
        server.registerTool(name, { description: `added ${name}` }, async () => ({ content: [{ type: "text", text: name }] }));
    },
    async close() {
      for (const server of servers) await server.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** The stdio server (tests/support/mcp-stdio-server.mjs) as a configuration, and the notes its `record` wrote. */
export function stdioToolServer(overrides: Partial<McpServerConfig> = {}) {
  const countFile = path.join(mkdtempSync(path.join(tmpdir(), "retrace-mcp-")), "calls.txt");
  const config: McpServerConfig = {
    name: "local",
    transport: {
      kind: "stdio",
      command: process.execPath,
      args: [path.join(import.meta.dirname, "mcp-stdio-server.mjs")],
      env: { COUNT_FILE: countFile },
    },
    approval: "always",
    tools: {},
    timeoutMs: 2_000,
    ...overrides,
  };
  const calls = () => {
    try {
      return readFileSync(countFile, "utf8").split("\n").filter(Boolean);
    } catch {
      return [];
    }
  };
  return { config, calls };
}

/** An HTTP server's configuration. */
export const httpConfig = (server: HttpToolServer, overrides: Partial<McpServerConfig> = {}): McpServerConfig => ({
  name: "world",
  transport: { kind: "http", url: server.url, headers: {} },
  approval: "always",
  tools: {},
  timeoutMs: 2_000,
  ...overrides,
});

/** An agent that makes the given calls in one step, then says what they answered. */
export function caller(servers: McpServerConfig[], calls: Omit<FunctionCall, "id">[]): Agent & { answered: CallResponses[] } {
  const answered: CallResponses[] = [];
  return {
    name: "demo",
    description: "",
    mcp: servers,
    answered,
    async *run(ctx) {
      const responses =
        ctx.resumed?.responses ?? (yield { type: "calls", calls: calls.map((c, i) => ({ id: `call-${i}-${Date.now()}`, ...c })) });
      answered.push(responses ?? []);
      yield { type: "event", parts: [{ text: JSON.stringify(responses) }] };
    },
  };
}
