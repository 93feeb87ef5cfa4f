import { eq, sql } from "drizzle-orm";
import { decode, encode } from "next-auth/jwt";
import { z } from "zod";
import { getDb } from "@/db/client";
import { users } from "@/db/schema";
import { validationFailed } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import { emitUserEvent, type AuditSource } from "./audit";
import { SESSION_MAX_AGE_SECONDS, authSecret } from "./session-options";
import { hashPassword, verifyPassword } from "./passwords";
import { SignUpInput } from "./users";

export const ChangePasswordInput = z.strictObject({
  currentPassword: z.string().min(1, "Enter your current password.").max(200),
  // The same rule as at sign-up.
  newPassword: SignUpInput.shape.password,
});

/**
 * Changes the user's password after checking the current one, hashed as at sign-up, and ends every
 * session of the user at once (the session version moves on, lib/auth/revocation.ts). Returns the
 * new session version, under which the caller re-issues the session that asked (reissueSession).
 */
export async function changePassword(
  userId: string,
  input: z.input<typeof ChangePasswordInput>,
  source: AuditSource = { clientAddress: null, userAgent: null },
): Promise<number> {
  const parsed = ChangePasswordInput.safeParse(input);
  if (!parsed.success) {
    throw validationFailed(parsed.error.issues.map((issue) => ({ field: issue.path.join("."), message: issue.message })));
  }
  const { currentPassword, newPassword } = parsed.data;
  const db = await getDb();
  const [user] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId));
  // A user who signs in only with GitHub has no password to change.
  if (!user?.passwordHash || !(await verifyPassword(currentPassword, user.passwordHash))) {
    throw validationFailed([{ field: "currentPassword", message: "This is not your current password." }]);
  }
  const passwordHash = await hashPassword(newPassword);
  return withChangeTransaction(async (tx) => {
    const row = one(
      await tx
        .update(users)
        .set({ passwordHash, sessionVersion: sql`${users.sessionVersion} + 1` })
        .where(eq(users.id, userId))
        .returning({ sessionVersion: users.sessionVersion }),
    );
    await emitUserEvent("user.password_changed", userId, source, tx);
    return row.sessionVersion;
  });
}

/** next-auth's session cookie: `__Secure-` prefixed when the site is served over HTTPS. */
const SESSION_COOKIES = ["__Secure-next-auth.session-token", "next-auth.session-token"] as const;

type CookieJar = {
  get(name: string): { value: string } | undefined;
  set(name: string, value: string, options: { httpOnly: boolean; sameSite: "lax"; path: string; secure: boolean; maxAge: number }): unknown;
};

/**
 * Keeps the session that changed the password: its cookie is re-issued under the new session
 * version (same claims, a fresh expiry), while every other cookie of the user stops working.
 * False when there is no session cookie to re-issue (the user then signs in again).
 */
export async function reissueSession(jar: CookieJar, userId: string, sessionVersion: number): Promise<boolean> {
  const secret = authSecret();
  for (const name of SESSION_COOKIES) {
    const value = jar.get(name)?.value;
    if (!value) continue;
    const token = await decode({ token: value, secret }).catch(() => null);
    if (!token || token.userId !== userId) return false;
    const { iat: _iat, exp: _exp, jti: _jti, ...claims } = token;
    const renewed = await encode({ token: { ...claims, sessionVersion }, secret, maxAge: SESSION_MAX_AGE_SECONDS });
    jar.set(name, renewed, {
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: name.startsWith("__Secure-"),
      maxAge: SESSION_MAX_AGE_SECONDS,
    });
    return true;
  }
  return false;
}
