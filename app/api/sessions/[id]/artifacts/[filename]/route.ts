import { handler, parse } from "@/lib/api/handler";
import { artifactVersion } from "@/lib/api/schemas";
import { loadArtifact } from "@/lib/db/queries";

export const GET = handler<{ id: string; filename: string }>(async ({ request, userId, params }) => {
  const version = parse(artifactVersion, new URL(request.url).searchParams.get("version") ?? undefined);
  const file = await loadArtifact(userId, params.id, params.filename, version);
  return new Response(new Uint8Array(file.data), {
    headers: {
      "content-type": file.mime_type,
      "content-disposition": `inline; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
      "x-artifact-version": String(file.version),
      // Files are user content: never let them run script in our origin.
      "content-security-policy": "sandbox",
      "x-content-type-options": "nosniff",
    },
  });
});
