import { handler } from "@/lib/api/handler";
import { readTree } from "@/lib/db/queries";

export const GET = handler<{ id: string }>(async ({ userId, params }) => ({ data: await readTree(userId, params.id) }));
