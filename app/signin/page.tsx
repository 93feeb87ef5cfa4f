import type { Metadata } from "next";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { SignInForm } from "@/components/auth/sign-in-form";
import { sessionOptions } from "@/lib/auth/session-options";
import { config } from "@/lib/config";

export const metadata: Metadata = { title: "Sign in · Billing" };

export default async function SignInPage() {
  if ((await getServerSession(sessionOptions()))?.user?.id) redirect("/");
  return (
    // The form reads ?callbackUrl= on the client.
    <Suspense>
      <SignInForm githubEnabled={config().auth.github !== null} compilesOnDemand={!config().production} />
    </Suspense>
  );
}
