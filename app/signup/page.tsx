import type { Metadata } from "next";
import { Suspense } from "react";
import { SignUpForm } from "@/components/auth/sign-up-form";

export const metadata: Metadata = { title: "Create your account · Billing" };

export default function SignUpPage() {
  return (
    // The form reads ?callbackUrl= on the client.
    <Suspense>
      <SignUpForm />
    </Suspense>
  );
}
