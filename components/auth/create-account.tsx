"use client";

import { useState, useSyncExternalStore } from "react";
import { Button, Field, inputClass } from "@/components/ui";
import { noSubscription } from "./auth-frame";
import { signInWithPassword } from "./password-sign-in";

type Failure = { message: string; errors: { field: string; message: string }[] };
type Created = { ok: true; email?: string } | ({ ok: false } & Failure);

/**
 * Creating a password account (sign-up, an invitation): create it, sign in, then a full navigation
 * so the server renders the dashboard with the new session cookie.
 */
export function useCreateAccount() {
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, setPending] = useState(false);
  // Until hydrated, a submit would be a plain form post: keep the button disabled till then.
  const ready = useSyncExternalStore(noSubscription, () => true, () => false);
  const fieldError = (field: string) => failure?.errors.find((error) => error.field === field)?.message;

  async function create(account: { email?: string; password: string }, created: () => Promise<Created>, destination: () => string | URL) {
    setPending(true);
    setFailure(null);
    const result = await created();
    if (!result.ok) {
      setFailure(result);
      setPending(false);
      return;
    }
    const signedIn = await signInWithPassword(result.email ?? account.email ?? "", account.password);
    if (!signedIn.ok) {
      // The account exists: say so, with why this session did not start.
      setFailure({ message: `Your account was created, but signing in failed: ${signedIn.message}`, errors: [] });
      setPending(false);
      return;
    }
    window.location.assign(destination());
  }

  return { failure, pending, ready, fieldError, create };
}

/** The new password, a failure that names no field, and the submit button. */
export function PasswordAndSubmit({
  account,
  label,
  pendingLabel,
}: {
  account: ReturnType<typeof useCreateAccount>;
  label: string;
  pendingLabel: string;
}) {
  const { failure, pending, ready, fieldError } = account;
  return (
    <>
      <Field label="Password" error={fieldError("password")} hint="At least 10 characters.">
        <input name="password" type="password" autoComplete="new-password" required className={inputClass} />
      </Field>
      {failure && failure.errors.length === 0 && (
        <p role="alert" className="text-sm text-red-700">
          {failure.message}
        </p>
      )}
      <Button type="submit" disabled={pending || !ready} className="w-full">
        {pending ? pendingLabel : label}
      </Button>
    </>
  );
}
