import { handler, parse } from "@/lib/api/handler";
import { artifactVersion } from "@/lib/api/schemas";
import { loadArtifact } from "@/lib/db/queries";
import { isMimeType } from "@/lib/session/mime";

export const GET = handler<{ id: string; filename: string }>(async ({ request, userId, params }) => {
  const version = parse(artifactVersion, new URL(request.url).searchParams.get("version") ?? undefined);
  const file = await loadArtifact(userId, params.id, params.filename, version);
  return new Response(new Uint8Array(file.data), {
    headers: {
      // Saves validate the type; a file stored before they did is still served, as opaque bytes.
      "content-type": isMimeType(file.mime_type) ? file.mime_type : "application/octet-stream",
      "content-disposition": `inline; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
      "x-artifact-version": String(file.version),
      // Files are user content: never let them run script in our origin.
      "content-security-policy": "sandbox",
      "x-content-type-options": "nosniff",
    },
  });
});
