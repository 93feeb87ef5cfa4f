"use client";

import { useRouter } from "next/navigation";
import { useState, useSyncExternalStore, type FormEvent } from "react";
import { Button, Field, inputClass } from "@/components/ui";
import { createCall } from "@/packages/sdk/src/call";

const noSubscription = () => () => {};
// The customer's browser, without a session: the public operation, typed from the document.
const call = createCall({ baseUrl: "/api" });

const METHODS = [
  { value: "pm_sandbox_succeeds", label: "Sandbox card: succeeds (pm_sandbox_succeeds)" },
  { value: "pm_sandbox_declined", label: "Sandbox card: declined (pm_sandbox_declined)" },
];

/** Pays an open sandbox invoice from its hosted page, then shows the page again (paid, or why not). */
export function HostedPayForm({ token, payLabel }: { token: string; payLabel: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const ready = useSyncExternalStore(noSubscription, () => true, () => false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      const result = await call("payHostedInvoice", { path: { token }, body: { payment_method: String(form.get("payment_method")) } });
      if (!result.ok) setError(result.problem.detail ?? `The payment could not be made (${result.status}).`);
      else if (result.data.status !== "paid") setError("The payment did not go through. Choose another payment method.");
      router.refresh();
    } catch {
      setError("The payment could not be sent; check your connection and try again.");
    }
    setPending(false);
  }

  return (
    <form onSubmit={submit} method="post" className="mt-4 space-y-4" noValidate>
      <Field label="Payment method" hint="Sandbox payment methods decide the outcome; no card is charged.">
        <select name="payment_method" className={inputClass} defaultValue={METHODS[0]!.value}>
          {METHODS.map((method) => (
            <option key={method.value} value={method.value}>
              {method.label}
            </option>
          ))}
        </select>
      </Field>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      <Button type="submit" disabled={!ready || pending}>
        {pending ? "Paying…" : payLabel}
      </Button>
    </form>
  );
}
