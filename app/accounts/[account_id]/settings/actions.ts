"use server";

import { getServerSession } from "next-auth";
import { cookies, headers } from "next/headers";
import { addressOf, limitSignIn, throttledMessage } from "@/lib/api/rate-limit";
import { sessionOptions } from "@/lib/auth/session-options";
import { changePassword, reissueSession } from "@/lib/auth/password-change";
import { ServiceError } from "@/lib/errors";
import { roleAction } from "@/lib/teams/action";
import { createInvitation, revokeInvitation } from "@/lib/teams/invitations";
import { revokeOutrankingToken } from "@/lib/teams/member-tokens";
import { changeMemberRole, removeMember } from "@/lib/teams/members";

export type ChangePasswordResult =
  | { ok: true; signedIn: boolean }
  | { ok: false; message: string; errors: { field: string; message: string }[] };

/**
 * Changes the signed-in user's password: every other session ends at once, this one is kept
 * (re-issued under the new session version). Throttled like sign-in, per email and address.
 */
export async function changePasswordAction(input: { currentPassword: string; newPassword: string }): Promise<ChangePasswordResult> {
  // The session check includes the server-side revocation (lib/server/auth-options.ts, jwt callback).
  const session = await getServerSession(sessionOptions());
  if (!session?.user?.id) return { ok: false, message: "Your session has ended. Sign in again.", errors: [] };
  const requestHeaders = Object.fromEntries(await headers());
  const throttled = await limitSignIn(addressOf(requestHeaders), session.user.email);
  if (throttled) return { ok: false, message: throttledMessage(throttled), errors: [] };
  try {
    const sessionVersion = await changePassword(
      session.user.id,
      { currentPassword: String(input?.currentPassword ?? ""), newPassword: String(input?.newPassword ?? "") },
      { clientAddress: addressOf(requestHeaders), userAgent: requestHeaders["user-agent"] ?? null },
    );
    return { ok: true, signedIn: await reissueSession(await cookies(), session.user.id, sessionVersion) };
  } catch (error) {
    if (error instanceof ServiceError) {
      const errors = (error.extras.errors as { field: string; message: string }[] | undefined) ?? [];
      return { ok: false, message: error.message, errors };
    }
    throw error;
  }
}

// Members and invitations (docs/teams.md): every action checks the caller's role in roleAction.

/** A new invitation link (shown once): `path` is `/invite/<token>`. Admins and owners. */
export async function createInvitationAction(input: { email: string; role: string }) {
  return roleAction("createInvitation", "admin", async (ctx) => {
    const { invitation, path } = await createInvitation({ ctx, input });
    return { invitationId: invitation.id, path, expiresAt: invitation.expiresAt.toISOString() };
  });
}

export async function revokeInvitationAction(input: { invitationId: string }) {
  return roleAction("revokeInvitation", "admin", async (ctx) => {
    await revokeInvitation({ ctx, input: { invitationId: String(input?.invitationId ?? "") } });
    return {};
  });
}

export async function changeMemberRoleAction(input: { userId: string; role: string }) {
  return roleAction("changeMemberRole", "admin", async (ctx) => {
    const member = await changeMemberRole({ ctx, input });
    return { userId: member.id, role: member.role };
  });
}

/** Removes a member; `revokeTokens` also revokes every API token they made (docs/teams.md). */
export async function removeMemberAction(input: { userId: string; revokeTokens?: boolean }) {
  return roleAction("removeMember", "admin", async (ctx) => {
    const { tokensRevoked } = await removeMember({ ctx, input: { userId: String(input?.userId ?? ""), revokeTokens: input?.revokeTokens === true } });
    return { tokensRevoked };
  });
}

/** Revokes a token listed as made by a removed or demoted member: developers revoke tokens, as on the API Tokens page. */
export async function revokeMemberTokenAction(input: { tokenId: string }) {
  return roleAction("revokeMemberToken", "developer", async (ctx) => {
    await revokeOutrankingToken(ctx, String(input?.tokenId ?? ""));
    return {};
  });
}
