/** The names and pins of a chat's turns, as a map. */
import { sql } from "drizzle-orm";
import type { TurnLabel } from "@/lib/session/tree";
import { all, mapped, type Statement } from "../database";

/** The chat's labelled turns. */
export const labelsOf = (sessionId: string): Statement<Map<string, TurnLabel>> =>
  mapped(
    all<{ invocation_id: string; label: string | null; pinned: boolean | number }>(sql`
      SELECT invocation_id, label, pinned FROM version_labels WHERE session_id = ${sessionId}`),
    (rows) => new Map(rows.map((r) => [r.invocation_id, { label: r.label, pinned: Boolean(r.pinned) }])),
  );
