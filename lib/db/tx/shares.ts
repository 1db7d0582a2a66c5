/** A share link's version of a chat as its viewer reads it. */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { attachmentsOf } from "@/lib/session/attachments";
import { walkRewinds } from "@/lib/session/effective-history";
import { recordedVersions } from "@/lib/session/rewind";
import { sharedEvent } from "@/lib/session/share-view";
import { USER_PREFIX } from "@/lib/session/state";
import type { AdkEvent, ArtifactDelta } from "@/lib/session/types";
import type { Executor } from "../database";
import { parseJson, type SessionRow } from "../rows";
import { toEvent } from "./history";
import { markerLinks } from "./layout";
import { eventIdIn, inPieces, logOf, piecesIn } from "./log";

/** What a link shows: the chat's name when shared and the turns of that version, events in order, with what the sharer let in. */
export interface SharedVersion {
  name: string;
  agent: string;
  sharedAt: string;
  /** What of the events the link shows (lib/session/share-view.ts). */
  events: AdkEvent[];
  /** The chat's session files in that version (when shared), newest version of each. */
  files: Map<string, number>;
  /** The file versions its messages attach (when shared), as `version/filename`. */
  attachments: Set<string>;
  /** For "Continue from here": the source's row, whose log up to `upToSeq` is that version. */
  source: SessionRow;
  upToSeq: number;
}

/** The link's version; null when there is no such link (revoked, or its chat deleted). */
export async function readShared(tx: Executor, token: string): Promise<SharedVersion | null> {
  const link = await tx.one<ShareRow>(sql`SELECT * FROM share_links WHERE token_hash = ${hashOf(token)}`);
  const source = link && (await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${link.session_id} AND deleted_at IS NULL`));
  if (!link || !source) return null;
  const log = logOf(source);
  const upTo = Number(link.up_to_seq);
  const { segments } = walkRewinds(upTo, upTo === 0 ? [] : await markerLinks(tx, log, upTo));
  const rows = await tx.all<{ session_id: string; id: string; data: string }>(sql`
    SELECT session_id, id, data FROM events WHERE ${inPieces(segments.flatMap((s) => piecesIn(log, s)))} ORDER BY seq`);
  const shown = { includeTools: Boolean(link.include_tools), includeFiles: Boolean(link.include_files) };
  const events = rows.flatMap((r) => sharedEvent(toEvent({ id: eventIdIn(log, r.session_id, r.id), data: r.data }), shown) ?? []);
  const files = new Map<string, number>();
  if (link.include_files) {
    const deltas = await tx.all<{ delta: string }>(sql`
      SELECT artifact_delta AS delta FROM events
      WHERE ${inPieces(piecesIn(log, [1, upTo]))} AND artifact_delta IS NOT NULL ORDER BY seq`);
    for (const [filename, version] of recordedVersions(deltas.map((d) => parseJson<ArtifactDelta>(d.delta)))) {
      if (!filename.startsWith(USER_PREFIX)) files.set(filename, version);
    }
    // A tombstone (the file removed by a rewind) is no file.
    for (const [filename, version] of [...files]) {
      const found = await tx.one<{ tombstone: boolean | number }>(sql`
        SELECT tombstone FROM artifacts WHERE scope = ${source.id} AND filename = ${filename} AND version = ${version}`);
      if (!found || found.tombstone) files.delete(filename);
    }
  }
  return {
    name: link.name,
    agent: source.agent,
    sharedAt: new Date(Number(link.created_at)).toISOString(),
    events,
    files,
    attachments: new Set(events.flatMap((e) => attachmentsOf(e).map((a) => `${a.version}/${a.filename}`))),
    source,
    upToSeq: upTo,
  };
}

export const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

export interface ShareRow {
  id: string;
  session_id: string;
  /** The chat's name when shared: a rename afterwards is not the link's. */
  name: string;
  up_to_seq: number;
  include_tools: boolean | number;
  include_files: boolean | number;
  created_at: number;
}
