"use client";

import { useState, useSyncExternalStore, type FormEvent } from "react";
import { changePasswordAction, type ChangePasswordResult } from "@/app/accounts/[account_id]/settings/actions";
import { noSubscription } from "@/components/auth/auth-frame";
import { Button, Card, Field, inputClass } from "@/components/ui";

export function ChangePasswordForm() {
  const [result, setResult] = useState<ChangePasswordResult | null>(null);
  const [pending, setPending] = useState(false);
  // Until hydrated, a submit would be a plain form post: keep the button disabled till then.
  const ready = useSyncExternalStore(noSubscription, () => true, () => false);
  const failure = result && !result.ok ? result : null;
  const fieldError = (field: string) => failure?.errors.find((error) => error.field === field)?.message;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setPending(true);
    setResult(null);
    const outcome = await changePasswordAction({
      currentPassword: String(form.get("currentPassword")),
      newPassword: String(form.get("newPassword")),
    });
    setPending(false);
    setResult(outcome);
    if (outcome.ok && !outcome.signedIn) window.location.assign(new URL("/signin", window.location.origin));
    else if (outcome.ok) formElement.reset();
  }

  return (
    <Card title="Change your password">
      <form onSubmit={submit} method="post" className="max-w-sm space-y-4" noValidate>
        <Field label="Current password" error={fieldError("currentPassword")}>
          <input name="currentPassword" type="password" autoComplete="current-password" required className={inputClass} />
        </Field>
        <Field label="New password" error={fieldError("newPassword")} hint="At least 10 characters.">
          <input name="newPassword" type="password" autoComplete="new-password" required className={inputClass} />
        </Field>
        {failure && failure.errors.length === 0 && (
          <p role="alert" className="text-sm text-red-700">
            {failure.message}
          </p>
        )}
        {result?.ok && (
          <p role="status" className="text-sm text-green-700">
            Password changed. Every other session has been signed out; this one stays signed in.
          </p>
        )}
        <Button type="submit" disabled={pending || !ready}>
          {pending ? "Changing…" : "Change password"}
        </Button>
      </form>
    </Card>
  );
}
