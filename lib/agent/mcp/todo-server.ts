import "server-only";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { addTodo, listTodos, MAX_TODOS, removeTodo, TODO_LENGTH, type Todo } from "@/lib/db/queries";

/** The request metadata key naming whose list a call is on: only the app's own in-process client reaches this server. */
export const USER_META = "retrace/user";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const listed = (todos: Todo[]) => (todos.length ? todos.map((t, i) => `${i + 1}. ${t.text}`).join("\n") : "The todo list is empty.");

function userOf(extra: { _meta?: Record<string, unknown> }): string {
  const user = extra._meta?.[USER_META];
  if (typeof user !== "string") throw new Error("No user named for this call");
  return user;
}

/**
 * The built-in MCP tool server (docs/semantics.md, "Tools"): a todo list per user, stored outside every chat,
 * so a rewind visibly does not undo what its calls did. Served in process (lib/agent/mcp/connections.ts).
 */
export function todoServer(): McpServer {
  const server = new McpServer({ name: "retrace-todos", version: "1.0.0" });
  server.registerTool(
    "list_todos",
    { description: "List the user's todos, numbered.", annotations: { readOnlyHint: true, title: "List todos" } },
    async (extra) => text(listed(await listTodos(userOf(extra)))),
  );
  server.registerTool(
    "add_todo",
    {
      description: `Add a todo to the end of the user's list (at most ${MAX_TODOS}).`,
      inputSchema: { text: z.string().min(1).max(TODO_LENGTH).describe("what to do") },
      annotations: { readOnlyHint: false, destructiveHint: false, title: "Add a todo" },
    },
    async ({ text: todo }, extra) => text(`Added. The list now:\n${listed(await addTodo(userOf(extra), todo))}`),
  );
  server.registerTool(
    "remove_todo",
    {
      description: "Remove the todo with the given number, as list_todos numbers them.",
      inputSchema: { number: z.number().int().min(1).describe("the todo's number in the list") },
      annotations: { readOnlyHint: false, destructiveHint: true, title: "Remove a todo" },
    },
    async ({ number }, extra) => {
      const removed = await removeTodo(userOf(extra), number);
      return removed ? text(`Removed todo ${number}: ${removed.text}`) : { ...text(`There is no todo ${number}.`), isError: true };
    },
  );
  return server;
}
