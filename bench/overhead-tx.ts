/**
 * What the store's part of a model turn costs, for `npm run bench -- --overhead` (bench/overhead.ts): the
 * begin transaction, the history read and the end transaction (its reply stored, the task final, the
 * session released), as the runtime calls them, for `users` chats at once, `turns` turns each. Run in a process of
 * its own on the database its environment names; argv[2] is the PostgreSQL server's pid (0 for SQLite),
 * whose processes' CPU counts too. Prints `{appMs, databaseMs}` per turn as one JSON line.
 */
import { randomUUID } from "node:crypto";
import { CONTEXT_EVENTS } from "@/lib/agent/context";
import { INSTANCE } from "@/lib/agent/live";
import { eventsOf } from "@/lib/agent/models";
import { closeDb } from "@/lib/db/connection";
import { beginTurn, createUser } from "@/lib/db/queries";
import { newInvocationId } from "@/lib/session/rewind";
import { eventToMessage } from "@/lib/task/convert";
import type { Task } from "@/lib/task/types";
import { cpuMs } from "./proc";

const postmaster = Number(process.argv[2]);
const USERS = 20;
const TURNS = 3;

async function turn(userId: string, sessionId: string, create: boolean) {
  const invocationId = newInvocationId();
  const event = eventsOf(invocationId);
  const messageId = randomUUID();
  const taskId = randomUUID();
  const userEvent = event("user", [{ text: "stream 40 tokens every 50 ms" }], { id: messageId });
  const task: Task = {
    kind: "task",
    id: taskId,
    contextId: sessionId,
    status: { state: "working", timestamp: new Date().toISOString() },
    history: [eventToMessage(userEvent, sessionId, taskId)],
    metadata: { kagent_invocation_id: invocationId, kagent_agent: "assistant" },
  };
  const writer = await beginTurn(userId, sessionId, { agent: "assistant", create, task, userEvent, owner: INSTANCE, messageId });
  if ("existing" in writer) throw new Error("a new turn was expected");
  await writer.history(CONTEXT_EVENTS);
  const reply = Array.from({ length: 40 }, (_, i) => `t${i} `).join("");
  await writer.end({ ...task, status: { state: "completed", timestamp: new Date().toISOString() } }, [
    event("assistant", [{ text: reply }], { turn_complete: true }),
  ]);
}

async function round(users: number) {
  const ids = await Promise.all(Array.from({ length: users }, () => createUser()));
  await Promise.all(
    ids.map(async (userId) => {
      const sessionId = randomUUID();
      for (let t = 0; t < TURNS; t++) await turn(userId, sessionId, t === 0);
    }),
  );
}

async function main() {
  await round(USERS); // compiles the code paths and, on PostgreSQL, prepares the statements
  const app = process.cpuUsage();
  const database = postmaster ? cpuMs([postmaster]) : 0;
  for (let i = 0; i < 5; i++) await round(USERS);
  const used = process.cpuUsage(app);
  const turns = 5 * USERS * TURNS;
  console.log(
    JSON.stringify({
      appMs: (used.user + used.system) / 1000 / turns,
      databaseMs: postmaster ? (cpuMs([postmaster]) - database) / turns : 0,
    }),
  );
  await closeDb();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
