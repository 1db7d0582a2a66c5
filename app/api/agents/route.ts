import { listAgents } from "@/lib/agent/registry";
import { handler } from "@/lib/api/handler";

export const GET = handler(() => ({ data: listAgents() }));
