import type { NextAuthOptions } from "next-auth";
import type { JWT } from "next-auth/jwt";
import { config } from "@/lib/config";
import { secretFromEnvOrLocal } from "@/lib/keys";
import { isSessionCurrent } from "./revocation";

declare module "next-auth" {
  interface User {
    organizationId?: string;
    sessionVersion?: number;
  }
  interface Session {
    user: { id: string; email: string; name: string | null; organizationId: string };
  }
}
declare module "next-auth/jwt" {
  interface JWT {
    userId?: string;
    organizationId?: string;
    sessionVersion?: number;
  }
}

/** A session cookie lives a week unless revoked (sign-out, password change: lib/auth/revocation.ts). */
export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 60 * 60;

export function authSecret(): string {
  return secretFromEnvOrLocal("NEXTAUTH_SECRET", config().auth.secret);
}

/** The token as it stands, or none if it was revoked on the server (sign-out, password change). */
export async function currentToken(token: JWT): Promise<JWT> {
  return (await isSessionCurrent(token.userId, token.sessionVersion)) ? token : {};
}

/**
 * What reading a session needs (`getServerSession` on a page): the secret, the cookie's lifetime,
 * and the callbacks that turn a revoked cookie into no session. It imports no sign-in code (users,
 * organizations, enrollment: the whole domain), so the sign-in page, which only asks whether someone
 * is already signed in, compiles and loads without it. Every page and action that reads a session
 * uses it; signing in (the next-auth route) uses `authOptions()`, which builds on it.
 */
export function sessionOptions(): NextAuthOptions {
  return {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/signin" },
    providers: [],
    callbacks: {
      jwt: ({ token }) => currentToken(token),
      async session({ session, token }) {
        session.user = {
          id: token.userId ?? "",
          email: token.email ?? "",
          name: token.name ?? null,
          organizationId: token.organizationId ?? "",
        };
        return session;
      },
    },
  };
}
