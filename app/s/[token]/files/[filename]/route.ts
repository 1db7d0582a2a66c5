import { fileResponse } from "@/lib/api/files";
import { errorResponse, parse } from "@/lib/api/handler";
import { artifactVersion, shareToken } from "@/lib/api/schemas";
import { readBlob, sharedFile } from "@/lib/db/queries";
import { NotFoundError } from "@/lib/errors";

/**
 * A file of a share link that shares files, as it was in the shared version (`?version=`: an earlier version one
 * of its messages attached). No sign-in: the link is the key.
 */
export async function GET(request: Request, { params }: { params: Promise<{ token: string; filename: string }> }) {
  try {
    const { token, filename } = await params;
    if (!shareToken.safeParse(token).success) throw new NotFoundError("File not found");
    const version = parse(artifactVersion, new URL(request.url).searchParams.get("version") ?? undefined);
    const file = await sharedFile(token, filename, version);
    const body = file.blob ? readBlob(file.blob.id) : new Uint8Array(file.data);
    return fileResponse(
      body,
      { filename, mimeType: file.mime_type, size: file.size },
      {
        "x-robots-tag": "noindex, nofollow",
        "cache-control": "no-store",
      },
    );
  } catch (error) {
    return errorResponse(error);
  }
}
