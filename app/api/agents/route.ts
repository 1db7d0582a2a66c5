import { handler } from "@/lib/api/handler";
import { listAgents } from "@/lib/agent/registry";

export const GET = handler(() => ({ data: listAgents() }));
