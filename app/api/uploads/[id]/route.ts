import { fileResponse } from "@/lib/api/files";
import { handler } from "@/lib/api/handler";
import { openUpload, readBlob, removeUpload } from "@/lib/db/queries";

type Params = { id: string };

/** The upload's bytes, served as every file is (lib/api/files.ts). */
export const GET = handler<Params>(async ({ userId, params }) => {
  const upload = await openUpload(userId, params.id);
  return fileResponse(readBlob(upload.blobId), { filename: upload.filename, mimeType: upload.mime_type, size: upload.size });
});

/** Removes an upload not sent yet (a chip's ×): its bytes go unless a message attached them. */
export const DELETE = handler<Params>(async ({ userId, params }) => {
  await removeUpload(userId, params.id);
  return { data: { id: params.id } };
});
