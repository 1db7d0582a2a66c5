import { errorResponse, json } from "@/lib/api/handler";
import { AUTH_COOKIE, AUTH_COOKIE_OPTIONS, issueToken } from "@/lib/auth";
import { createUser } from "@/lib/db/queries";

export async function POST() {
  try {
    const userId = await createUser();
    const token = await issueToken(userId);
    const response = json({ data: { user_id: userId, token } }, 201);
    const { maxAge, ...options } = AUTH_COOKIE_OPTIONS;
    const cookie = [`${AUTH_COOKIE}=${token}`, `Path=${options.path}`, `Max-Age=${maxAge}`, "HttpOnly", "SameSite=Lax"];
    response.headers.append("set-cookie", cookie.join("; "));
    return response;
  } catch (error) {
    return errorResponse(error);
  }
}
