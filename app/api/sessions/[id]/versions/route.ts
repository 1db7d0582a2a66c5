import { handler } from "@/lib/api/handler";
import { listVersions } from "@/lib/db/queries";

export const GET = handler<{ id: string }>(async ({ userId, params }) => ({ data: await listVersions(userId, params.id) }));
