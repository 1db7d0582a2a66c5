/**
 * A turn's own writes: its beginning (the user's event, the task and the lease, in a new chat or an
 * existing one), the events it emits, and its end; and the history its agent reads (docs/semantics.md, "Turns").
 */
import { sql } from "drizzle-orm";
import { WrongAgentError } from "@/lib/errors";
import type { AttachmentSource } from "@/lib/session/attachments";
import type { RewindReason } from "@/lib/session/rewind";
import { parseState } from "@/lib/session/state";
import type { AdkEvent, State } from "@/lib/session/types";
import type { InvocationNode } from "@/lib/session/versions";
import type { Task } from "@/lib/task/types";
import { getDb } from "./connection";
import { type Executor, one, run, ahead as sentAhead } from "./database";
import type { SessionRow } from "./rows";
import { appendEventsTx, LOG_COLUMNS, type LogCursor, type LogRow, lookedUp } from "./tx/append";
import { attachFiles } from "./tx/attachments";
import { claimRow, claimSession, leaseFor, leaseMs, RELEASED, renewLease } from "./tx/claim";
import { type Claimed, claimDecisionTx, refuseWhileWaiting } from "./tx/decision";
import { readEvents } from "./tx/history";
import { checkLastTurn } from "./tx/last-turn";
import { type Ahead, lookAhead } from "./tx/layout";
import { rewindTx } from "./tx/rewind";
import { insertSession, requireSession, roomForChat, sessionOf } from "./tx/sessions";
import { storeTask, taskColumns, taskOfMessage, taskRefused, taskRowOfMessage } from "./tx/tasks";
import { chargeTokens, checkTokenBudget, checkTurnsAtOnce, tokensToday } from "./tx/tokens";
import { lockUser } from "./tx/users";

/**
 * Starts a turn in one transaction: in a new chat (`create`, made here under `sessionId`), or in the
 * user's chat of `agent`, where a send that repeats an A2A `messageId` gets the task it already started;
 * otherwise the session must be free (409), the user under the concurrent-turn quota (429) and the sender's
 * last turn the chat's (409, when it names one), then the rewind it asks for (edit, regenerate), the user's
 * event, the task and the lease are stored together.
 * Resolves with the turn's writer, or the task a repeated send already started.
 */
export async function beginTurn(
  userId: string,
  sessionId: string,
  input: Parameters<typeof begin>[2],
): Promise<{ existing: Task } | TurnWriter> {
  const begun = await begin(userId, sessionId, input);
  return "existing" in begun ? begun : turnWriter(userId, sessionId, input.task.id, begun);
}

/**
 * A running turn's writes to its session. It holds the cursor its last write left (lib/db/tx/append.ts),
 * from which the next write is computed, and the lease: neither leaves the store.
 */
export interface TurnWriter {
  /** The user's event the turn began with, as stored. */
  readonly event: AdkEvent;
  /** How often `renew` must run for the lease to hold. */
  readonly renewEvery: number;
  /** The chat's own state as the turn began (or resumed): only the turn's own events change it while it holds the chat. */
  readonly state: State;
  /** Stores events the turn emitted; resolves with them as stored. */
  append(events: AdkEvent[]): Promise<AdkEvent[]>;
  /** Stores the turn's last events and its final task, charges the tokens its run used, and releases the session, together. */
  end(task: Task, events?: AdkEvent[], tokens?: number): Promise<AdkEvent[]>;
  /** The history the turn's agent reads (`historyAt` its user event), its last `limit` events. */
  history(limit: number): Promise<AdkEvent[]>;
  /** Extends the lease. `held: false` means another instance has taken the session: stop writing. */
  renew(): Promise<{ held: boolean; cancel: boolean }>;
}

function turnWriter(
  userId: string,
  sessionId: string,
  turn: string,
  /** `seq`: where the turn's history ends; "now" for a resumed turn, whose own events so far are its history too. */
  begun: { event: AdkEvent; seq: number | "now"; state: State; cursor?: LogCursor },
): TurnWriter {
  let cursor = begun.cursor;
  return {
    event: begun.event,
    renewEvery: leaseMs() / 4,
    state: begun.state,
    async append(events) {
      const appended = await turnWrite(userId, sessionId, turn, cursor, (tx, row, tail) => appendEventsTx(tx, row, events, { tail }));
      cursor = appended.cursor;
      return appended.events;
    },
    end: (task, events = [], tokens = 0) => endWrite(userId, sessionId, task, events, cursor, tokens),
    history: (limit) => historyAt(userId, sessionId, begun.seq, limit),
    renew: async () => renewLease(await getDb(), sessionId, turn),
  };
}

/** `beginTurn`'s transaction: the user's event, its seq (where the turn's history ends) and the cursor for the turn's next write. */
async function begin(
  userId: string,
  sessionId: string,
  input: {
    agent: string;
    create?: boolean;
    task: Task;
    userEvent: AdkEvent;
    owner: string;
    messageId?: string;
    rewindBefore?: { invocationId: string; reason: RewindReason };
    /** The turn the sender shows last (null: none): refused with 409 unless it still is (lib/db/tx/last-turn.ts). */
    lastInvocationId?: string | null;
    /** What the message attaches (lib/db/tx/attachments.ts): files of the chat, named by the user's event. */
    attachments?: AttachmentSource[];
  },
): Promise<{ existing: Task } | { event: AdkEvent; seq: number; state: State; cursor?: LogCursor }> {
  const db = await getDb();
  return db.write(async (tx) => {
    const now = Date.now();
    const runningTurns = one<{ n: number }>(sql`
      SELECT COUNT(*) AS n FROM sessions WHERE user_id = ${userId} AND turn_task_id IS NOT NULL AND turn_lease_until > ${now}`);
    let row: SessionRow;
    let running: { n: number } | undefined;
    let today: { used: number } | null | undefined;
    let ahead: Ahead | undefined;
    // One batch (one round trip on PostgreSQL), run in this order: each statement after the locks before it
    // are held, so none of them reads what a concurrent writer is changing.
    if (input.create) {
      [, running, today] = await tx.batch([roomForChat(tx.dialect, userId), runningTurns, tokensToday(userId)]);
      row = await insertSession(tx, userId, { id: sessionId, agent: input.agent });
    } else {
      const [owned, found, , count, used, looked] = await tx.batch([
        sessionOf(tx.dialect, userId, sessionId, true),
        input.messageId ? taskRowOfMessage(sessionId, input.messageId) : null,
        lockUser(tx.dialect, userId),
        runningTurns,
        tokensToday(userId),
        lookAhead(sessionId, lookedUp([input.userEvent])),
      ]);
      ahead = looked;
      if (owned.agent !== input.agent) throw new WrongAgentError(sessionId, owned.agent);
      const existing = await taskOfMessage(tx, owned, found ?? undefined);
      if (existing) return { existing };
      row = await claimRow(tx, owned);
      running = count;
      today = used;
    }
    checkTurnsAtOnce(running);
    checkTokenBudget(today);
    if (input.lastInvocationId !== undefined && !input.create) await checkLastTurn(tx, row, ahead, input.lastInvocationId);
    // Edit & resend and Regenerate: the rewind and the new turn commit together, or neither does.
    if (input.rewindBefore) {
      await rewindTx(tx, row, input.rewindBefore.invocationId, input.rewindBefore.reason);
      row = await requireSession(tx, userId, sessionId, true);
    }
    if (!input.create) await refuseWhileWaiting(tx, row);
    const userEvent = await attachFiles(tx, row, input.userEvent, input.attachments ?? []);
    const appended = await appendEventsTx(tx, row, [userEvent], {
      set: leaseFor(input.task.id, input.owner),
      task: { task: input.task, messageId: input.messageId },
      ahead,
    });
    return { event: appended.events[0], seq: row.last_seq + 1, state: parseState(row.state), cursor: appended.cursor };
  });
}

/**
 * A turn's history: the effective history as it was once the log reached `seq` (the turn's user event:
 * the log only grows, so later events change nothing before it; "now": as it is), its last `limit` events.
 */
export async function historyAt(userId: string, sessionId: string, seq: number | "now", limit: number): Promise<AdkEvent[]> {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    return (await readEvents(tx, seq === "now" ? row : { ...row, last_seq: seq }, "effective", { limit })).items;
  });
}

/**
 * Takes the user's decision on a task that waits for one (lib/db/tx/decision.ts), in one transaction; resolves
 * with the resumed turn's writer, or the task as it is when the decision changes nothing.
 */
export async function beginDecision(
  userId: string,
  taskId: string,
  input: Parameters<typeof claimDecisionTx>[3],
): Promise<{ asIs: Task; running: boolean } | (Exclude<Claimed, { asIs: Task }> & { writer: TurnWriter })> {
  const db = await getDb();
  const claimed = await db.write((tx) => claimDecisionTx(tx, userId, taskId, input));
  if ("asIs" in claimed) return claimed;
  const writer = turnWriter(userId, claimed.sessionId, claimed.task.id, {
    event: claimed.userEvent,
    seq: "now",
    state: claimed.state,
    cursor: claimed.cursor,
  });
  return { ...claimed, writer };
}

/** The row a turn's write claims shows the columns its cursor computed the write from. */
const sameLog = (claimed: SessionRow, cursor: LogRow) =>
  LOG_COLUMNS.every((column) =>
    column === "named_by_user" ? Boolean(claimed[column]) === Boolean(cursor[column]) : claimed[column] === cursor[column],
  );

class CursorMoved extends Error {}

/**
 * A running turn's write to its session. With the cursor its last write left (the turn alone appends while
 * it holds the session), `write` goes out right behind the statement that claims and locks the row, in the
 * same round trip on PostgreSQL, instead of after reading the row and the tail's node back. Before commit
 * the claimed row must show the cursor's values; if not, the transaction is rolled back and `write` runs
 * again on the row as read.
 */
async function turnWrite<T>(
  userId: string,
  sessionId: string,
  turn: string,
  cursor: LogCursor | undefined,
  write: (tx: Executor, row: LogRow, tail?: InvocationNode) => Promise<T>,
): Promise<T> {
  const db = await getDb();
  if (cursor) {
    try {
      return await db.write(async (tx) => {
        // The write's failure is reported only once the claim shows the cursor held: one computed from a moved cursor fails for that.
        const [[claimed], written] = await sentAhead(tx, [sessionOf(tx.dialect, userId, sessionId, true)], () =>
          outcome(write(tx, cursor.row, cursor.tail)),
        );
        if (!sameLog(await claimRow(tx, claimed, turn), cursor.row)) throw new CursorMoved();
        return unwrap(written);
      });
    } catch (error) {
      if (!(error instanceof CursorMoved)) throw error;
    }
  }
  return db.write(async (tx) => write(tx, await claimSession(tx, userId, sessionId, turn)));
}

/** Stores events a running turn emitted, from the row as read (its writer computes them from its cursor); resolves with them. */
export async function appendTurnEvents(userId: string, sessionId: string, turn: string, events: AdkEvent[]) {
  return (await turnWrite(userId, sessionId, turn, undefined, (tx, row) => appendEventsTx(tx, row, events))).events;
}

/** Stores the turn's last events (usually its reply), the final task, and releases the session, together. Resolves with the events stored. */
export async function endTurn(userId: string, sessionId: string, task: Task, events: AdkEvent[] = []) {
  return endWrite(userId, sessionId, task, events, undefined);
}

async function endWrite(userId: string, sessionId: string, task: Task, events: AdkEvent[], cursor: LogCursor | undefined, tokens = 0) {
  const bytes = taskColumns(task).bytes;
  // `tokens`, what the run used, count against the user's daily budget with the task that says so.
  return turnWrite(userId, sessionId, task.id, cursor, async (tx, row, tail) => {
    // A refused task is reported before whatever the writes behind it met, as when the task went first on its own.
    const [[saved], written] = await sentAhead(tx, [storeTask(row, task), tokens > 0 ? chargeTokens(row.user_id, tokens) : null], () =>
      outcome(
        events.length > 0
          ? appendEventsTx(tx, row, events, { set: RELEASED, tail, bytes }).then((appended) => appended.events)
          : tx
              .batch([
                run(sql`UPDATE sessions SET ${RELEASED}, stored_bytes = stored_bytes + ${bytes} WHERE id = ${row.id}`),
                run(sql`UPDATE users SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${row.user_id}`),
              ])
              .then((): AdkEvent[] => []),
      ),
    );
    if (saved === 0) throw taskRefused(task);
    return unwrap(written);
  });
}

/** A promise's outcome as a value, for work whose failure is reported only after a check of what went ahead of it. */
const outcome = <T>(work: Promise<T>): Promise<{ value: T } | { error: unknown }> =>
  work.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

const unwrap = <T>(settled: { value: T } | { error: unknown }): T => {
  if ("error" in settled) throw settled.error;
  return settled.value;
};
