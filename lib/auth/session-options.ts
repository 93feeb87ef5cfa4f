import type { NextAuthOptions } from "next-auth";
import type { JWT } from "next-auth/jwt";
import { config } from "@/lib/config";
import { secretFromEnvOrLocal } from "@/lib/keys";
import { log, safeError } from "@/lib/log";
import type { Role } from "@/lib/auth/roles";
import { currentSessionUser } from "./revocation";

declare module "next-auth" {
  interface User {
    organizationId?: string;
    sessionVersion?: number;
  }
  interface Session {
    user: { id: string; email: string; name: string | null; organizationId: string; role: Role };
  }
}
declare module "next-auth/jwt" {
  interface JWT {
    userId?: string;
    organizationId?: string;
    sessionVersion?: number;
    /** Read afresh from the user's row on every session read (a demotion applies at once). */
    role?: Role;
  }
}

/** A session cookie lives a week unless revoked (sign-out, password change: lib/auth/revocation.ts). */
export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 60 * 60;

export function authSecret(): string {
  return secretFromEnvOrLocal("NEXTAUTH_SECRET", config().auth.secret);
}

/**
 * The token as it stands, with the user's current role, or none if it was revoked on the server
 * (sign-out, password change) or the user was removed from the organization.
 */
export async function currentToken(token: JWT): Promise<JWT> {
  const user = await currentSessionUser(token.userId, token.sessionVersion);
  if (!user || user.organizationId !== token.organizationId) return {};
  return { ...token, role: user.role };
}

/** A token that names no user (revoked on the server): no session at all, not a user with an empty id. */
class SessionEnded extends Error {
  constructor() {
    super("The session was ended on the server (sign-out or password change).");
    this.name = "SessionEnded";
  }
}

/**
 * next-auth's messages as JSON lines through pino (its own logger prints multi-line text). Errors
 * are logged through safeError: next-auth's metadata can carry the credentials a request sent.
 */
const NEXT_AUTH_LOGGER: NonNullable<NextAuthOptions["logger"]> = {
  error(code, metadata) {
    const error = metadata instanceof Error ? metadata : metadata.error;
    // Expected whenever an old cookie is used: next-auth answers `{}` and clears the cookie.
    if (error instanceof SessionEnded) return void log().info({ code }, "next-auth: session ended on the server");
    log().error({ code, err: safeError(error) }, "next-auth error");
  },
  warn(code) {
    log().warn({ code }, "next-auth warning");
  },
  debug(code) {
    log().debug({ code }, "next-auth debug");
  },
};

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
    logger: NEXT_AUTH_LOGGER,
    callbacks: {
      jwt: ({ token }) => currentToken(token),
      async session({ session, token }) {
        // next-auth answers a throw here with `{}` (getServerSession: null) and clears the cookie.
        if (!token.userId || !token.organizationId || !token.role) throw new SessionEnded();
        session.user = {
          id: token.userId,
          email: token.email ?? "",
          name: token.name ?? null,
          organizationId: token.organizationId,
          role: token.role,
        };
        return session;
      },
    },
  };
}
