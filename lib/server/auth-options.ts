import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import { config } from "@/lib/config";
import { addressOf, limitSignIn, throttledMessage } from "@/lib/api/rate-limit";
import { currentSessionVersion, revokeSessions } from "@/lib/auth/revocation";
import { safeRedirectPath } from "@/lib/auth/safe-redirect";
import { currentToken, sessionOptions } from "@/lib/auth/session-options";
import { emitUserEvent, userIdByEmail } from "@/lib/auth/audit";
import { verifyCredentials } from "@/lib/auth/users";
import { findOrCreateOAuthUser } from "@/lib/teams/users";

/** One header of next-auth's request (a plain record). */
function headerOf(headers: Record<string, unknown> | undefined, name: string): string | null {
  const value = headers?.[name];
  return typeof value === "string" ? value.slice(0, 512) : null;
}

export { authSecret, SESSION_MAX_AGE_SECONDS } from "@/lib/auth/session-options";

/** next-auth: email and password always; GitHub when GITHUB_ID and GITHUB_SECRET are set. */
export function authOptions(): NextAuthOptions {
  const github = config().auth.github;
  const reading = sessionOptions();
  return {
    ...reading,
    providers: [
      CredentialsProvider({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, request) {
          if (!credentials?.email || !credentials.password) return null;
          // Throttled per email and per address; next-auth shows the message on the sign-in page.
          const throttled = await limitSignIn(addressOf(request.headers), credentials.email);
          if (throttled) throw new Error(throttledMessage(throttled));
          const source = { clientAddress: addressOf(request.headers), userAgent: headerOf(request.headers, "user-agent") };
          const user = await verifyCredentials(credentials.email, credentials.password);
          if (!user) {
            const known = await userIdByEmail(credentials.email);
            if (known) await emitUserEvent("user.sign_in_failed", known, source);
            return null;
          }
          await emitUserEvent("user.signed_in", user.id, source);
          const sessionVersion = (await currentSessionVersion(user.id)) ?? 0;
          return { id: user.id, email: user.email, name: user.name, organizationId: user.organizationId, sessionVersion };
        },
      }),
      ...(github ? [GitHubProvider({ clientId: github.clientId, clientSecret: github.clientSecret })] : []),
    ],
    events: {
      // Signing out ends the session on the server too: the JWT stops working everywhere at once.
      async signOut({ token }) {
        if (!token?.userId) return;
        await revokeSessions(token.userId);
        await emitUserEvent("user.signed_out", token.userId, { clientAddress: null, userAgent: null });
      },
      // Credentials sign-ins are recorded in authorize (with the request's address); OAuth ones here.
      async signIn({ user, account }) {
        if (account?.provider === "credentials" || !user.email) return;
        const known = await userIdByEmail(user.email);
        if (known) await emitUserEvent("user.signed_in", known, { clientAddress: null, userAgent: null });
      },
    },
    callbacks: {
      ...reading.callbacks,
      // Every redirect next-auth makes (sign-in, OAuth callbacks, sign-out) stays on this site.
      redirect({ url, baseUrl }) {
        const origin = new URL(baseUrl).origin;
        return `${origin}${safeRedirectPath(url, origin)}`;
      },
      async jwt({ token, user, account }) {
        if (user && account?.provider === "credentials") {
          token.userId = user.id;
          token.organizationId = user.organizationId;
          token.sessionVersion = user.sessionVersion ?? 0;
        } else if (user && account && user.email) {
          const local = await findOrCreateOAuthUser({ email: user.email, name: user.name ?? null });
          token.userId = local.id;
          token.organizationId = local.organizationId;
          token.sessionVersion = (await currentSessionVersion(local.id)) ?? 0;
        }
        // Every read, and the sign-in itself, takes the role from the user's row.
        return currentToken(token);
      },
    },
  };
}
