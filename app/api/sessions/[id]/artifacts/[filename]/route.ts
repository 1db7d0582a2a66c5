import { fileResponse } from "@/lib/api/files";
import { handler, parse } from "@/lib/api/handler";
import { artifactVersion } from "@/lib/api/schemas";
import { loadArtifact, readBlob } from "@/lib/db/queries";

export const GET = handler<{ id: string; filename: string }>(async ({ request, userId, params }) => {
  const version = parse(artifactVersion, new URL(request.url).searchParams.get("version") ?? undefined);
  const file = await loadArtifact(userId, params.id, params.filename, version);
  // An attachment streams from its blob, a chunk at a time.
  const body = file.blob ? readBlob(file.blob.id) : new Uint8Array(file.data);
  return fileResponse(
    body,
    { filename: file.filename, mimeType: file.mime_type, size: file.size },
    { "x-artifact-version": String(file.version) },
  );
});
