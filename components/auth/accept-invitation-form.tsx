"use client";

import Link from "next/link";
import type { FormEvent } from "react";
import { acceptInvitationAction } from "@/app/invite/[token]/actions";
import { Field, inputClass } from "@/components/ui";
import { ROLE_LABELS, type Role } from "@/lib/auth/roles";
import { AuthFrame } from "./auth-frame";
import { PasswordAndSubmit, useCreateAccount } from "./create-account";

/** The invitee's password account in the inviting organization; then signs in and opens the dashboard. */
export function AcceptInvitationForm({ token, email, organization, role }: { token: string; email: string; organization: string; role: Role }) {
  const account = useCreateAccount();
  const { fieldError } = account;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get("password"));
    await account.create({ password }, () => acceptInvitationAction({ token, name: String(form.get("name")), password }), () => new URL("/", window.location.origin));
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
        <PasswordAndSubmit account={account} label="Create account and join" pendingLabel="Joining…" />
      </form>
    </AuthFrame>
  );
}
