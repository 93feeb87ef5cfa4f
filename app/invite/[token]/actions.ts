"use server";

import { headers } from "next/headers";
import { addressOf, limitInvitationAttempt, throttledMessage } from "@/lib/api/rate-limit";
import { ServiceError } from "@/lib/errors";
import { actionFailure, type ActionResult } from "@/lib/teams/action";
import { acceptInvitation } from "@/lib/teams/invitations";

/**
 * The invitee's password account, in the inviting organization with the invited role, whatever
 * SIGNUP says; the form then signs in. Throttled like sign-in, per address and per link (its SHA-256).
 */
export async function acceptInvitationAction(input: { token: string; name: string; password: string }): Promise<ActionResult<{ email: string }>> {
  const throttled = await limitInvitationAttempt(addressOf(Object.fromEntries(await headers())), String(input?.token ?? ""));
  if (throttled) return actionFailure(new ServiceError("rate_limited", throttledMessage(throttled)), "acceptInvitation");
  try {
    const user = await acceptInvitation(input);
    return { ok: true, email: user.email };
  } catch (error) {
    if (error instanceof ServiceError) return actionFailure(error, "acceptInvitation");
    throw error;
  }
}
