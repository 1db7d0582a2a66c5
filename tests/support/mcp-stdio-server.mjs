// A small MCP tool server over stdio, for the tests (tests/support/mcp-servers.ts): plain JavaScript that Node runs
// as it is. Each call of `record` appends a line to COUNT_FILE, so the test counts what reached the world.
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "test-stdio", version: "1.0.0" });
server.registerTool("record", { description: "Record a note in the world.", inputSchema: { note: z.string() } }, async ({ note }) => {
  appendFileSync(process.env.COUNT_FILE, `${note}\n`);
  return { content: [{ type: "text", text: `recorded ${note}` }] };
});
server.registerTool("peek", { description: "Read without changing anything.", annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: "text", text: "nothing changed" }],
}));
server.registerTool("die", { description: "The server process exits mid-call." }, async () => process.exit(1));
server.registerTool("hang", { description: "Never answers." }, () => new Promise(() => undefined));
await server.connect(new StdioServerTransport());
