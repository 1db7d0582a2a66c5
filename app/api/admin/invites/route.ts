import { inviteInput } from "@/lib/accounts/schemas";
import { errorResponse, json, readInput } from "@/lib/api/handler";
import { requireOperator } from "@/lib/api/operator";
import { inviteEmail } from "@/lib/db/queries";

/** RETRACE_SIGNUP=invite: the operator invites an address; one account may then be created with it (any method). */
export async function POST(request: Request) {
  try {
    requireOperator(request);
    const { email } = await readInput(request, inviteInput);
    return json({ data: await inviteEmail(email) }, 201);
  } catch (error) {
    return errorResponse(error);
  }
}
