"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useState, useSyncExternalStore, type FormEvent } from "react";
import { signUpAction, type SignUpResult } from "@/app/signup/actions";
import { Button, Field, inputClass } from "@/components/ui";
import { safeRedirectPath } from "@/lib/auth/safe-redirect";
import { AuthFrame, noSubscription } from "./auth-frame";
import { signInWithPassword } from "./password-sign-in";

export function SignUpForm() {
  const callbackUrl = useSearchParams().get("callbackUrl");
  const [failure, setFailure] = useState<Extract<SignUpResult, { ok: false }> | null>(null);
  const [pending, setPending] = useState(false);
  // Until hydrated, a submit would be a plain form post: keep the button disabled till then.
  const ready = useSyncExternalStore(noSubscription, () => true, () => false);
  const fieldError = (field: string) => failure?.errors.find((error) => error.field === field)?.message;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const input = {
      name: String(form.get("name")),
      company: String(form.get("company")),
      email: String(form.get("email")),
      password: String(form.get("password")),
    };
    setPending(true);
    setFailure(null);
    const result = await signUpAction(input);
    if (!result.ok) {
      setFailure(result);
      setPending(false);
      return;
    }
    const signedIn = await signInWithPassword(input.email, input.password);
    if (!signedIn.ok) {
      // The account exists: say so, with why this session did not start.
      setFailure({ ok: false, message: `Your account was created, but signing in failed: ${signedIn.message}`, errors: [] });
      setPending(false);
      return;
    }
    // A full navigation, so the server renders the dashboard with the new session cookie; only to
    // a path on this site, whatever ?callbackUrl= says.
    window.location.assign(safeRedirectPath(callbackUrl, window.location.origin));
  }

  return (
    <AuthFrame
      title="Create your account"
      footer={
        <>
          Already have an account?{" "}
          <Link className="font-medium underline" href={callbackUrl ? `/signin?${new URLSearchParams({ callbackUrl })}` : "/signin"}>
            Sign in
          </Link>
        </>
      }
    >
      <form onSubmit={submit} method="post" className="space-y-4" noValidate>
        <Field label="Your name" error={fieldError("name")}>
          <input name="name" autoComplete="name" required className={inputClass} />
        </Field>
        <Field label="Company" error={fieldError("company")}>
          <input name="company" autoComplete="organization" required className={inputClass} />
        </Field>
        <Field label="Email" error={fieldError("email")}>
          <input name="email" type="email" autoComplete="email" required className={inputClass} />
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
          {pending ? "Creating…" : "Create account"}
        </Button>
      </form>
      <p className="mt-3 text-xs text-slate-500">You get a live and a sandbox account.</p>
    </AuthFrame>
  );
}
