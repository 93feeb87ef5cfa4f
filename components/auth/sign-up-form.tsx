"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import type { FormEvent } from "react";
import { signUpAction } from "@/app/signup/actions";
import { Field, inputClass } from "@/components/ui";
import { safeRedirectPath } from "@/lib/auth/safe-redirect";
import { AuthFrame } from "./auth-frame";
import { PasswordAndSubmit, useCreateAccount } from "./create-account";

export function SignUpForm() {
  const callbackUrl = useSearchParams().get("callbackUrl");
  const account = useCreateAccount();
  const { fieldError } = account;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const input = {
      name: String(form.get("name")),
      company: String(form.get("company")),
      email: String(form.get("email")),
      password: String(form.get("password")),
    };
    // Only to a path on this site, whatever ?callbackUrl= says.
    await account.create(input, () => signUpAction(input), () => safeRedirectPath(callbackUrl, window.location.origin));
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
        <PasswordAndSubmit account={account} label="Create account" pendingLabel="Creating…" />
      </form>
      <p className="mt-3 text-xs text-slate-500">You get a live and a sandbox account.</p>
    </AuthFrame>
  );
}
