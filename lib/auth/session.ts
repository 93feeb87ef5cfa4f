import { getToken } from "next-auth/jwt";
import { authSecret } from "./options";
import { isSessionCurrent } from "./revocation";

export type SessionPrincipal = { userId: string; organizationId: string };

/**
 * The dashboard session carried by a request's cookie, if any. Route handlers receive a
 * NextRequest, whose cookie jar next-auth reads; typed here as the Request it extends.
 */
export async function sessionFromRequest(request: Request): Promise<SessionPrincipal | null> {
  if (!request.headers.get("cookie")?.includes("next-auth.session-token")) return null;
  const token = await getToken({ req: request as Parameters<typeof getToken>[0]["req"], secret: authSecret() });
  if (!token?.userId || !token.organizationId) return null;
  if (!(await isSessionCurrent(token.userId, token.sessionVersion))) return null;
  return { userId: token.userId, organizationId: token.organizationId };
}
