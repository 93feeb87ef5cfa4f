"use server";

import { headers } from "next/headers";
import { addressOf, limitSignIn, throttledMessage } from "@/lib/api/rate-limit";
import { signUp } from "@/lib/teams/users";
import { ServiceError } from "@/lib/errors";

export type SignUpResult = { ok: true } | { ok: false; message: string; errors: { field: string; message: string }[] };

/** Creates the organization (live and sandbox accounts) and its first user; the form then signs in. */
export async function signUpAction(input: { name: string; company: string; email: string; password: string }): Promise<SignUpResult> {
  const throttled = await limitSignIn(addressOf(Object.fromEntries(await headers())), String(input.email ?? ""));
  if (throttled) return { ok: false, message: throttledMessage(throttled), errors: [] };
  try {
    await signUp(input);
    return { ok: true };
  } catch (error) {
    if (error instanceof ServiceError) {
      const errors = (error.extras.errors as { field: string; message: string }[] | undefined) ?? [];
      return { ok: false, message: error.message, errors };
    }
    throw error;
  }
}
