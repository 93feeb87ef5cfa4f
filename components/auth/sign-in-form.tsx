"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState, useSyncExternalStore, type FormEvent } from "react";
import { Button, Field, inputClass } from "@/components/ui";
import { safeRedirectPath } from "@/lib/auth/safe-redirect";
import { AuthFrame, noSubscription } from "./auth-frame";
import { signInWithPassword } from "./password-sign-in";

/** `compilesOnDemand`: a development server, whose first page visits wait for compilation (said while pending). */
export function SignInForm({ githubEnabled, compilesOnDemand = false }: { githubEnabled: boolean; compilesOnDemand?: boolean }) {
  const callbackUrl = useSearchParams().get("callbackUrl");
  const [error, setError] = useState<string | null>(null);
  /** What the button waits for: the password check, then the dashboard's first render. */
  const [phase, setPhase] = useState<"idle" | "checking" | "opening">("idle");
  const pending = phase !== "idle";
  // Until hydrated, a submit would be a plain form post: keep the button disabled till then.
  const ready = useSyncExternalStore(noSubscription, () => true, () => false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPhase("checking");
    setError(null);
    const result = await signInWithPassword(String(form.get("email")), String(form.get("password")));
    if (!result.ok) {
      setPhase("idle");
      setError(result.message);
      return;
    }
    setPhase("opening");
    // A full navigation, so the server renders the dashboard with the new session cookie; only to
    // a path on this site, whatever ?callbackUrl= says.
    window.location.assign(safeRedirectPath(callbackUrl, window.location.origin));
  }

  return (
    <AuthFrame
      title="Sign in"
      footer={
        <>
          New here?{" "}
          <Link className="font-medium underline" href={callbackUrl ? `/signup?${new URLSearchParams({ callbackUrl })}` : "/signup"}>
            Create an account
          </Link>
        </>
      }
    >
      <form onSubmit={submit} method="post" className="space-y-4" noValidate>
        <Field label="Email">
          <input name="email" type="email" autoComplete="email" required className={inputClass} />
        </Field>
        <Field label="Password">
          <input name="password" type="password" autoComplete="current-password" required className={inputClass} />
        </Field>
        {error && (
          <p role="alert" className="text-sm text-red-700">
            {error}
          </p>
        )}
        <Button type="submit" disabled={pending || !ready} className="w-full">
          {phase === "checking" ? "Checking your email and password…" : phase === "opening" ? "Signed in: opening the dashboard…" : "Sign in"}
        </Button>
        {pending && compilesOnDemand ? (
          <p role="status" className="text-xs text-slate-500">
            The development server compiles each page on its first visit, which can take a minute on a busy machine
            (<code>npm run preview</code> serves a prebuilt app).
          </p>
        ) : null}
      </form>
      {githubEnabled && (
        <Button variant="secondary" className="mt-3 w-full" onClick={() => signIn("github", { callbackUrl: safeRedirectPath(callbackUrl, window.location.origin) })}>
          Sign in with GitHub
        </Button>
      )}
    </AuthFrame>
  );
}
