/**
 * "Continue from here" on a share link: a new chat of the viewer's, holding the shared version — its turns,
 * its state, and its files when the link shares them — in one transaction. It crosses users, so it copies
 * (a fork of one's own chat shares rows, lib/db/tx/log.ts; another user's rows are never shared) exactly what
 * the link shows (lib/session/share-view.ts): never rewound turns, other branches, `user:` state, or parts
 * and fields the page does not show.
 * The copy is charged to the viewer's quota and has no lineage (the source is not theirs to see). An attachment's
 * bytes become the viewer's own blob, copied inside the database (nothing when they have those bytes already).
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { NotFoundError } from "@/lib/errors";
import { attachmentOf, attachmentPart } from "@/lib/session/attachments";
import { scopeOf } from "@/lib/session/state";
import type { AdkEvent, ArtifactDelta, State } from "@/lib/session/types";
import { getDb } from "./connection";
import { parseJson, type SessionRow, summary } from "./rows";
import { appendEventsTx } from "./tx/append";
import { insertVersion } from "./tx/artifacts";
import { blobOf, copyBlob } from "./tx/blobs";
import { copyTasks, freshRow } from "./tx/import";
import { createSessionTx } from "./tx/sessions";
import { readShared, type SharedVersion } from "./tx/shares";
import type { SessionSummary } from "./types";

/** The version's events as the viewer gets them: new ids, file references (deltas, attachments) renumbered to the copied versions. */
function copiedEvents(shared: SharedVersion, renumber: (filename: string, version: number) => number | null): AdkEvent[] {
  return shared.events.map((event) => {
    const files: ArtifactDelta = {};
    for (const [filename, version] of Object.entries(event.actions?.artifact_delta ?? {})) {
      const copied = renumber(filename, version);
      if (copied !== null) files[filename] = copied;
    }
    const parts = event.content?.parts?.flatMap((part) => {
      const attached = attachmentOf(part);
      if (!attached) return [part];
      const version = renumber(attached.filename, attached.version);
      return version === null ? [] : [attachmentPart({ ...attached, version })];
    });
    const content = event.content && parts ? { content: { ...event.content, parts } } : {};
    return { ...event, ...content, id: randomUUID(), actions: { ...event.actions, artifact_delta: files } };
  });
}

export async function continueShared(token: string, viewerId: string): Promise<SessionSummary> {
  const db = await getDb();
  return db.write(async (tx) => {
    const shared = await readShared(tx, token);
    if (!shared) throw new NotFoundError("This link does not exist or was revoked");
    const source = shared.source;
    const initial = parseJson<State>(source.initial_state);
    let row: SessionRow = await createSessionTx(tx, viewerId, {
      agent: source.agent,
      name: shared.name,
      state: Object.fromEntries(Object.entries(initial).filter(([key]) => scopeOf(key) === "session")),
    });
    // Each file version the version's events name (none unless the link shares files), copied in the order first named, numbered from 0.
    const versions = new Map<string, number>();
    const wanted: [string, number][] = [];
    for (const event of shared.events) {
      for (const [filename, version] of Object.entries(event.actions?.artifact_delta ?? {})) {
        const key = `${version}/${filename}`;
        if (!versions.has(key)) {
          versions.set(key, -1);
          wanted.push([filename, version]);
        }
      }
    }
    for (const [filename, version] of wanted) {
      const file = await tx.one<{
        mime_type: string;
        size: number;
        data: Buffer;
        tombstone: boolean | number;
        blob_sha256: string | null;
      }>(sql`
        SELECT mime_type, size, data, tombstone, blob_sha256 FROM artifacts
        WHERE scope = ${source.id} AND filename = ${filename} AND version = ${version}`);
      if (!file) continue;
      const blob = file.blob_sha256 ? await blobOf(tx, source.user_id, file.blob_sha256) : undefined;
      if (blob) await copyBlob(tx, blob, viewerId);
      else if (file.blob_sha256) continue;
      const data = Buffer.from(file.data);
      const copy = {
        mime_type: file.mime_type,
        size: blob ? blob.size : data.length,
        data,
        tombstone: Boolean(file.tombstone),
        restored_from: null,
        blob_sha256: file.blob_sha256,
      };
      versions.set(`${version}/${filename}`, await insertVersion(tx, row, filename, copy));
    }
    const events = copiedEvents(shared, (filename, version) => {
      const copied = versions.get(`${version}/${filename}`);
      return copied === undefined || copied < 0 ? null : copied;
    });
    if (events.length) await appendEventsTx(tx, row, events, { imported: true });
    row = await freshRow(tx, row.id);
    await copyTasks(tx, row, shared, new Set(events.map((e) => e.invocation_id)));
    return summary(await freshRow(tx, row.id));
  });
}
