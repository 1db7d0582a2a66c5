/**
 * `npm run bench -- --turns`: what one demo-agent turn costs the runtime and the store, without HTTP: many
 * users at once, each running turns in its own chat through the A2A layer's `begin` (words streamed with
 * no delay). Reports the process's CPU time per turn (median of several rounds) and, on PostgreSQL, the
 * statements a turn sends.
 */
import { Role, type SendMessageRequest } from "@a2a-js/sdk";
import pg from "pg";
import { begin } from "@/lib/a2a/turns";
import { getAgent } from "@/lib/agent/registry";
import { createUser } from "@/lib/db/queries";
import { middle } from "./measure";

const USERS = 50;
const TURNS = 20;
const ROUNDS = 5;

/** Counts the statements every pg client sends (the bench's own measuring, never the app's). */
function countStatements() {
  const query = pg.Client.prototype.query;
  let count = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: Parameters<typeof query>) {
    count += 1;
    return query.apply(this, args);
  } as typeof query;
  return () => count;
}

async function chat(userId: string, turns: number) {
  const agent = getAgent("demo");
  let contextId: string | undefined;
  for (let t = 0; t < turns; t++) {
    const value = t % 2 === 0 ? `set counter to ${t}` : "what is counter?";
    const message = { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: "text", value } }], contextId };
    const started = await begin(userId, agent, { message } as unknown as SendMessageRequest, "http://127.0.0.1");
    if (!("turn" in started)) throw new Error("a turn was expected");
    const done = await started.turn.done;
    // A failed turn costs less than a finished one: it would flatter the figures.
    if (done.status.state !== "completed") throw new Error(`a turn ended ${done.status.state}`);
    contextId = done.contextId;
  }
}

/** CPU milliseconds and statements per turn, the users' creation left out. */
async function round(users: number, turns: number, statements: () => number) {
  const ids = await Promise.all(Array.from({ length: users }, () => createUser()));
  const sent = statements();
  const before = process.cpuUsage();
  await Promise.all(ids.map((id) => chat(id, turns)));
  const used = process.cpuUsage(before);
  return { cpu: (used.user + used.system) / 1000 / (users * turns), statements: (statements() - sent) / (users * turns) };
}

export async function turnsBench(dialect: string) {
  process.env.DEMO_WORD_DELAY_MS = "0";
  process.env.RETRACE_MAX_CONCURRENT_TURNS = String(USERS);
  const statements = countStatements();
  await round(20, 5, statements); // compiles the code paths and, on PostgreSQL, prepares the statements
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round(USERS, TURNS, statements));
  return {
    turns: ROUNDS * USERS * TURNS,
    users: USERS,
    cpuMsPerTurn: middle(rounds.map((r) => r.cpu)),
    ...(dialect === "postgres" ? { statementsPerTurn: middle(rounds.map((r) => r.statements)) } : {}),
  };
}
