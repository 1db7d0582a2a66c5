import { errorResponse } from "@/lib/api/handler";
import { shareToken } from "@/lib/api/schemas";
import { sharedFile } from "@/lib/db/shares";
import { NotFoundError } from "@/lib/errors";
import { isMimeType } from "@/lib/session/mime";

/** A file of a share link that shares files, as it was in the shared version. No sign-in: the link is the key. */
export async function GET(_request: Request, { params }: { params: Promise<{ token: string; filename: string }> }) {
  try {
    const { token, filename } = await params;
    if (!shareToken.safeParse(token).success) throw new NotFoundError("File not found");
    const file = await sharedFile(token, filename);
    return new Response(new Uint8Array(file.data), {
      headers: {
        "content-type": isMimeType(file.mime_type) ? file.mime_type : "application/octet-stream",
        "content-disposition": `inline; filename*=UTF-8''${encodeURIComponent(filename)}`,
        "content-security-policy": "sandbox",
        "x-content-type-options": "nosniff",
        "x-robots-tag": "noindex, nofollow",
        "cache-control": "no-store",
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
