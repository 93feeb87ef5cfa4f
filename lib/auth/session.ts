import { getToken } from "next-auth/jwt";
import type { Role } from "@/lib/auth/roles";
import { authSecret } from "./session-options";
import { currentSessionUser } from "./revocation";

export type SessionPrincipal = { userId: string; organizationId: string; role: Role };

/**
 * The dashboard session carried by a request's cookie, if any, with the user's role as it stands
 * now. Route handlers receive a NextRequest, whose cookie jar next-auth reads; typed here as the
 * Request it extends.
 */
export async function sessionFromRequest(request: Request): Promise<SessionPrincipal | null> {
  if (!request.headers.get("cookie")?.includes("next-auth.session-token")) return null;
  const token = await getToken({ req: request as Parameters<typeof getToken>[0]["req"], secret: authSecret() });
  if (!token?.userId || !token.organizationId) return null;
  const user = await currentSessionUser(token.userId, token.sessionVersion);
  if (!user || user.organizationId !== token.organizationId) return null;
  return { userId: token.userId, organizationId: user.organizationId, role: user.role };
}
