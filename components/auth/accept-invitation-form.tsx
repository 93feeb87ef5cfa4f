"use client";

import Link from "next/link";
import { useState, useSyncExternalStore, type FormEvent } from "react";
import { acceptInvitationAction } from "@/app/invite/[token]/actions";
import { Button, Field, inputClass } from "@/components/ui";
import { ROLE_LABELS, type Role } from "@/lib/teams/roles";
import { AuthFrame, noSubscription } from "./auth-frame";
import { signInWithPassword } from "./password-sign-in";

type Failure = { message: string; errors: { field: string; message: string }[] };

/** The invitee's password account in the inviting organization; then signs in and opens the dashboard. */
export function AcceptInvitationForm({ token, email, organization, role }: { token: string; email: string; organization: string; role: Role }) {
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, setPending] = useState(false);
  const ready = useSyncExternalStore(noSubscription, () => true, () => false);
  const fieldError = (field: string) => failure?.errors.find((error) => error.field === field)?.message;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get("password"));
    setPending(true);
    setFailure(null);
    const result = await acceptInvitationAction({ token, name: String(form.get("name")), password });
    if (!result.ok) {
      setFailure(result);
      setPending(false);
      return;
    }
    const signedIn = await signInWithPassword(result.email, password);
    if (!signedIn.ok) {
      setFailure({ message: `Your account was created, but signing in failed: ${signedIn.message}`, errors: [] });
      setPending(false);
      return;
    }
    window.location.assign(new URL("/", window.location.origin));
  }

  return (
    <AuthFrame
      title={`Join ${organization}`}
      footer={
        <>
          Already have an account?{" "}
          <Link className="font-medium underline" href="/signin">
            Sign in
          </Link>
        </>
      }
    >
      <p className="mb-4 text-sm text-slate-600">
        You are invited as <strong data-testid="invited-role">{ROLE_LABELS[role]}</strong>.
      </p>
      <form onSubmit={submit} method="post" className="space-y-4" noValidate>
        <Field label="Email">
          <input name="email" type="email" value={email} readOnly className={`${inputClass} bg-slate-50`} />
        </Field>
        <Field label="Your name" error={fieldError("name")}>
          <input name="name" autoComplete="name" required className={inputClass} />
        </Field>
        <Field label="Password" error={fieldError("password")} hint="At least 10 characters.">
          <input name="password" type="password" autoComplete="new-password" required className={inputClass} />
        </Field>
        {failure && failure.errors.length === 0 && (
          <p role="alert" className="text-sm text-red-700">
            {failure.message}
          </p>
        )}
        <Button type="submit" disabled={pending || !ready} className="w-full">
          {pending ? "Joining…" : "Create account and join"}
        </Button>
      </form>
    </AuthFrame>
  );
}
