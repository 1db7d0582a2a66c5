/** Row shapes as both dialects return them (SQLite gives booleans as 0/1), and their API forms. */
import type { SessionSummary } from "./types";

export interface SessionRow {
  id: string;
  user_id: string;
  agent: string;
  name: string;
  named_by_user: boolean | number;
  state: string;
  initial_state: string;
  last_seq: number;
  tail_seq: number;
  forked_from_session_id: string | null;
  forked_before_invocation_id: string | null;
  inherited: string | null;
  shared_until: number;
  created_at: number;
  updated_at: number;
  activity: number;
  stored_bytes: number;
  turn_task_id: string | null;
  turn_owner: string | null;
  turn_lease_until: number | null;
  turn_cancel: boolean | number;
  tree_built: boolean | number;
  deleted_at: number | null;
  import_lease_until: number | null;
  search_indexed: boolean | number;
}

export const parseJson = <T>(text: string) => JSON.parse(text) as T;

const iso = (ms: number) => new Date(ms).toISOString();

export function summary(row: SessionRow): SessionSummary {
  return {
    id: row.id,
    user_id: row.user_id,
    agent: row.agent,
    name: row.name,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    forked_from_session_id: row.forked_from_session_id,
    forked_before_invocation_id: row.forked_before_invocation_id,
  };
}

/** The task of the turn holding the session, while its lease lasts. */
export function runningTaskId(row: SessionRow, now = Date.now()): string | null {
  return row.turn_task_id && (row.turn_lease_until ?? 0) > now ? row.turn_task_id : null;
}
