"use client";

import { useState, useSyncExternalStore, type FormEvent } from "react";
import { Button, Field, inputClass } from "@/components/ui";
import { createCall } from "@/packages/sdk/src/call";

export type MethodOption = { value: string; label: string };

const noSubscription = () => () => {};
// The customer's browser, without a session: the one public operation, typed from the document.
const call = createCall({ baseUrl: "/api" });

/**
 * The hosted page's form: email and a sandbox payment method, then the public completion call.
 * Paid → the browser goes to the merchant's success URL; a failed payment shows why and the
 * customer may pick another method (the session stays open).
 */
export function CheckoutForm({
  sessionId,
  lockedEmail,
  methods,
  payLabel,
}: {
  sessionId: string;
  lockedEmail: string | null;
  methods: MethodOption[];
  payLabel: string;
}) {
  const [error, setError] = useState<string | null>(null);
  const [emailError, setEmailError] = useState<string | undefined>();
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState(false);
  // Until hydrated a submit would be a plain form post: the button waits for it.
  const ready = useSyncExternalStore(noSubscription, () => true, () => false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    setPending(true);
    setError(null);
    setEmailError(undefined);
    try {
      const result = await call("completeCheckoutSession", {
        path: { session_id: sessionId },
        body: { ...(lockedEmail === null ? { email } : {}), payment_method: String(form.get("payment_method")) },
      });
      if (!result.ok) {
        setEmailError(result.problem.errors?.find((e) => e.field === "email")?.message);
        setError(result.problem.detail ?? `The payment could not be made (${result.status}).`);
      } else if (result.data.status === "complete" && result.data.redirect_url) {
        setDone(true);
        window.location.assign(result.data.redirect_url);
        return;
      } else {
        setError(result.data.last_payment_error ?? "The payment did not go through. Choose another payment method.");
      }
    } catch {
      setError("The payment could not be sent; check your connection and try again.");
    }
    setPending(false);
  }

  return (
    <form onSubmit={submit} method="post" className="space-y-4" noValidate>
      <Field label="Email" error={emailError} hint={lockedEmail !== null ? "Set by the merchant for this checkout." : undefined}>
        {lockedEmail !== null ? (
          <input name="email" type="email" value={lockedEmail} readOnly className={`${inputClass} bg-slate-100`} />
        ) : (
          <input name="email" type="email" autoComplete="email" required className={inputClass} />
        )}
      </Field>
      <Field label="Payment method" hint="Sandbox payment methods decide the outcome; no card is charged.">
        <select name="payment_method" className={inputClass} defaultValue={methods[0]?.value}>
          {methods.map((method) => (
            <option key={method.value} value={method.value}>
              {method.label}
            </option>
          ))}
        </select>
      </Field>
      {error && (
        <p role="alert" className="rounded border border-red-200 bg-red-50 p-2 text-sm text-red-800">
          {error}
        </p>
      )}
      <Button type="submit" disabled={pending || done || !ready} className="w-full py-2">
        {done ? "Paid, redirecting…" : pending ? "Processing…" : payLabel}
      </Button>
    </form>
  );
}
