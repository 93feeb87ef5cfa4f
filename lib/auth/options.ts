import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import { config } from "@/lib/config";
import { secretFromEnvOrLocal } from "@/lib/keys";
import { findOrCreateOAuthUser, verifyCredentials } from "./users";

declare module "next-auth" {
  interface User {
    organizationId?: string;
  }
  interface Session {
    user: { id: string; email: string; name: string | null; organizationId: string };
  }
}
declare module "next-auth/jwt" {
  interface JWT {
    userId?: string;
    organizationId?: string;
  }
}

export function authSecret(): string {
  return secretFromEnvOrLocal("NEXTAUTH_SECRET", config().auth.secret);
}

/** next-auth: email and password always; GitHub when GITHUB_ID and GITHUB_SECRET are set. */
export function authOptions(): NextAuthOptions {
  const github = config().auth.github;
  return {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: 7 * 24 * 60 * 60 },
    pages: { signIn: "/signin" },
    providers: [
      CredentialsProvider({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials) {
          if (!credentials?.email || !credentials.password) return null;
          const user = await verifyCredentials(credentials.email, credentials.password);
          return user ? { id: user.id, email: user.email, name: user.name, organizationId: user.organizationId } : null;
        },
      }),
      ...(github ? [GitHubProvider({ clientId: github.clientId, clientSecret: github.clientSecret })] : []),
    ],
    callbacks: {
      async jwt({ token, user, account }) {
        if (user && account?.provider === "credentials") {
          token.userId = user.id;
          token.organizationId = user.organizationId;
        } else if (user && account && user.email) {
          const local = await findOrCreateOAuthUser({ email: user.email, name: user.name ?? null });
          token.userId = local.id;
          token.organizationId = local.organizationId;
        }
        return token;
      },
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
