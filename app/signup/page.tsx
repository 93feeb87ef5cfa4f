import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { AuthFrame } from "@/components/auth/auth-frame";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { signUpOpen } from "@/lib/teams/signup";

export const metadata: Metadata = { title: "Create your account · Billing" };
// SIGNUP's default depends on whether a user exists yet: decided per request.
export const dynamic = "force-dynamic";

export default async function SignUpPage() {
  if (!(await signUpOpen())) {
    return (
      <AuthFrame title="Sign-up is by invitation" footer={<Link className="font-medium underline" href="/signin">Sign in</Link>}>
        <p className="text-sm text-slate-700">
          New accounts on this instance join an existing organization through an invitation link. Ask an owner or admin of your
          organization to invite you from Settings → Members.
        </p>
      </AuthFrame>
    );
  }
  return (
    // The form reads ?callbackUrl= on the client.
    <Suspense>
      <SignUpForm />
    </Suspense>
  );
}
