/**
 * The built-in MCP todo server's world (lib/agent/mcp/todo-server.ts): a user's todo list, outside every chat,
 * so that a rewind, fork or undo of a chat never changes it (docs/semantics.md, "Tools").
 */
import { sql } from "drizzle-orm";
import { ValidationError } from "@/lib/errors";
import { getDb } from "./connection";
import { ensureUser, lockUser } from "./tx/users";

/** A user's list holds at most this many todos, of at most TODO_LENGTH characters: it is not charged to the byte quota. */
export const MAX_TODOS = 100;
export const TODO_LENGTH = 200;

export interface Todo {
  id: string;
  text: string;
}

export async function listTodos(userId: string): Promise<Todo[]> {
  const db = await getDb();
  return db.all<Todo>(sql`SELECT id, text FROM todos WHERE user_id = ${userId} ORDER BY created_at, id`);
}

/** Adds a todo at the end of the list; resolves with the list. */
export async function addTodo(userId: string, text: string): Promise<Todo[]> {
  const db = await getDb();
  return db.write(async (tx) => {
    await tx.batch([ensureUser(userId), lockUser(tx.dialect, userId)]);
    const list = await tx.all<Todo>(sql`SELECT id, text FROM todos WHERE user_id = ${userId} ORDER BY created_at, id`);
    if (list.length >= MAX_TODOS) throw new ValidationError(`The list is full (${MAX_TODOS} todos): remove one first`);
    const todo = { id: crypto.randomUUID(), text: text.slice(0, TODO_LENGTH) };
    await tx.run(sql`INSERT INTO todos (user_id, id, text, created_at) VALUES (${userId}, ${todo.id}, ${todo.text}, ${Date.now()})`);
    return [...list, todo];
  });
}

/** Removes the todo at `position` (1-based, as listed); resolves with it, or null when there is none. */
export async function removeTodo(userId: string, position: number): Promise<Todo | null> {
  const db = await getDb();
  return db.write(async (tx) => {
    await tx.batch([ensureUser(userId), lockUser(tx.dialect, userId)]);
    const list = await tx.all<Todo>(sql`SELECT id, text FROM todos WHERE user_id = ${userId} ORDER BY created_at, id`);
    const todo = list[position - 1];
    if (!todo) return null;
    await tx.run(sql`DELETE FROM todos WHERE user_id = ${userId} AND id = ${todo.id}`);
    return todo;
  });
}
