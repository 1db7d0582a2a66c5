import { authCookie, isHttps, issueToken } from "@/lib/accounts/guest-token";
import { errorResponse, json, refuseForeignOrigin } from "@/lib/api/handler";
import { createUser } from "@/lib/db/queries";

export async function POST(request: Request) {
  try {
    // A foreign page must not swap a browser's cookie for a fresh guest's (it would lose its chats).
    refuseForeignOrigin(request);
    const userId = await createUser();
    const token = await issueToken(userId);
    const response = json({ data: { user_id: userId, token } }, 201);
    response.headers.append("set-cookie", authCookie(token, isHttps(new URL(request.url), request.headers)));
    return response;
  } catch (error) {
    return errorResponse(error);
  }
}
