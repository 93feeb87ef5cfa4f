"use client";

import { useRouter } from "next/navigation";
import { useState, useSyncExternalStore, type FormEvent } from "react";
import { Button, Field, inputClass } from "@/components/ui";
import type { HostedLabels } from "@/lib/invoices/pdf/labels";
import { createCall } from "@/packages/sdk/src/call";

const noSubscription = () => () => {};
// The customer's browser, without a session: the public operation, typed from the document.
const call = createCall({ baseUrl: "/api" });

/** Pays an open sandbox invoice from its hosted page, then shows the page again (paid, or why not), in the invoice's language. */
export function HostedPayForm({ token, payLabel, labels }: { token: string; payLabel: string; labels: HostedLabels }) {
  const methods = [
    { value: "pm_sandbox_succeeds", label: labels.methodSucceeds },
    { value: "pm_sandbox_declined", label: labels.methodDeclined },
  ];
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
      if (!result.ok) setError(`${labels.failed} (${result.status})`);
      else if (result.data.status !== "paid") setError(labels.declined);
      router.refresh();
    } catch {
      setError(labels.offline);
    }
    setPending(false);
  }

  return (
    <form onSubmit={submit} method="post" className="mt-4 space-y-4" noValidate>
      <Field label={labels.paymentMethod} hint={labels.paymentMethodHint}>
        <select name="payment_method" className={inputClass} defaultValue={methods[0]!.value}>
          {methods.map((method) => (
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
        {pending ? labels.paying : payLabel}
      </Button>
    </form>
  );
}
