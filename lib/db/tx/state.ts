/** State by scope: session keys in the session row (with checkpoints), `user:` and `app:` keys in their tables. */
import { type SQL, sql } from "drizzle-orm";
import { parseState, replayState } from "@/lib/session/state";
import type { State, StateDelta } from "@/lib/session/types";
import { all, type Executor, run } from "../database";
import { parseJson, type SessionRow } from "../rows";
import { ROW_BYTES } from "./bytes";
import { inPiece, inPieces, logOf, piecesIn } from "./log";

/** A state snapshot every this many events bounds the replay a rewind or fork does. */
export const CHECKPOINT_EVERY = 256;

/** ADK's merged view of a session's state: its own keys, then the `app:` and `user:` keys that apply. */
export async function mergedState(tx: Executor, row: SessionRow): Promise<State> {
  const scoped = await tx.all<{ key: string; value: string }>(sql`
    SELECT key, value FROM app_state WHERE agent = ${row.agent}
    UNION ALL
    SELECT key, value FROM user_state WHERE user_id = ${row.user_id} AND agent = ${row.agent}`);
  return withScopedKeys(parseState(row.state), scoped);
}

/** A session's own state with the `app:` and `user:` keys that apply laid over it. */
export function withScopedKeys(state: State, scoped: { key: string; value: string }[]): State {
  for (const { key, value } of scoped) state[key] = parseJson(value);
  return state;
}

/** Sets (or, for null, deletes) `user:` keys of one user and agent; resolves with the bytes that adds (negative: frees). */
export async function applyScopedDelta(tx: Executor, userId: string, agent: string, delta: StateDelta): Promise<number> {
  let bytes = 0;
  for (const [key, value] of Object.entries(delta)) {
    const text = value === null ? null : JSON.stringify(value);
    const [removed] = await tx.batch([
      all<{ n: number }>(sql`
        DELETE FROM user_state WHERE user_id = ${userId} AND agent = ${agent} AND key = ${key}
        RETURNING ${userStateBytes(tx, sql`key`, sql`value`)} AS n`),
      text === null ? null : run(sql`INSERT INTO user_state (user_id, agent, key, value) VALUES (${userId}, ${agent}, ${key}, ${text})`),
    ]);
    bytes += (text === null ? 0 : ROW_BYTES + Buffer.byteLength(key) + Buffer.byteLength(text)) - Number(removed[0]?.n ?? 0);
  }
  return bytes;
}

/** A `user:` state row's bytes, as SQL. */
const userStateBytes = (tx: Executor, key: SQL, value: SQL) =>
  sql`${ROW_BYTES} + ${tx.dialect.byteLength(key)} + ${tx.dialect.byteLength(value)}`;

/** Sets (or, for null, deletes) `app:` keys: only ever on the operator's behalf. */
export async function writeAppState(tx: Executor, agent: string, delta: StateDelta) {
  for (const [key, value] of Object.entries(delta)) {
    if (value === null) await tx.run(sql`DELETE FROM app_state WHERE agent = ${agent} AND key = ${key}`);
    else {
      await tx.run(sql`
        INSERT INTO app_state (agent, key, value) VALUES (${agent}, ${key}, ${JSON.stringify(value)})
        ON CONFLICT (agent, key) DO UPDATE SET value = excluded.value`);
    }
  }
}

/** Session-scoped state just before `boundary`: the last checkpoint, then the deltas after it. */
export async function stateBefore(tx: Executor, row: SessionRow, boundary: number): Promise<State> {
  const log = logOf(row);
  let checkpoint: { seq: number; state: string } | undefined;
  for (const piece of piecesIn(log, [1, boundary - 1]).reverse()) {
    checkpoint = await tx.one<{ seq: number; state: string }>(
      sql`SELECT seq, state FROM state_checkpoints WHERE ${inPiece(piece)} ORDER BY seq DESC LIMIT 1`,
    );
    if (checkpoint) break;
  }
  const deltas = await tx.all<{ delta: string }>(sql`
    SELECT state_delta AS delta FROM events
    WHERE ${inPieces(piecesIn(log, [(checkpoint?.seq ?? 0) + 1, boundary - 1]))} AND state_delta IS NOT NULL
    ORDER BY seq`);
  return replayState(
    parseState(checkpoint?.state ?? row.initial_state),
    deltas.map((d) => parseJson<StateDelta>(d.delta)),
  );
}
