import { handler, readInput } from "@/lib/api/handler";
import { saveArtifactInput } from "@/lib/api/schemas";
import { listArtifacts, saveArtifact } from "@/lib/db/queries";

type Params = { id: string };

export const GET = handler<Params>(async ({ userId, params }) => ({ data: await listArtifacts(userId, params.id) }));

export const POST = handler<Params>(async ({ request, userId, params }) => {
  const input = await readInput(request, saveArtifactInput);
  const data = input.text !== undefined ? Buffer.from(input.text, "utf8") : Buffer.from(input.data_base64!, "base64");
  const mimeType = input.mime_type ?? (input.text !== undefined ? "text/plain" : "application/octet-stream");
  return { data: await saveArtifact(userId, params.id, { filename: input.filename, mimeType, data }), status: 201 };
});
