"use client";

import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui";
import { stripeFor } from "./stripe-payment-form";

type Props = {
  publishableKey: string;
  /** Where the page asks for a new SetupIntent: answers `{ client_secret }`, or `{ message }` with an error status. */
  startPath: string;
  /** Where Stripe.js sends the browser after confirming (the page: it re-reads the setup at Stripe). */
  returnPath: string;
  saveLabel: string;
  /** Set when the customer came back from an authentication that did not succeed. */
  initialError: string | null;
};

/**
 * Saving a card with Stripe.js (the portal's "update payment method"; docs/payments.md, "Saving a
 * card with a SetupIntent"): the Payment Element in deferred setup mode, then `confirmSetup` with
 * the client secret of the SetupIntent the server makes at Save. 3-D Secure is Stripe.js's. The page
 * never records the card: Stripe.js leaves for the return URL, where the server re-reads the setup.
 */
export function StripeSetupForm(props: Props) {
  return (
    <Elements stripe={stripeFor(props.publishableKey)} options={{ mode: "setup" }}>
      <SetupForm {...props} />
    </Elements>
  );
}

function SetupForm({ startPath, returnPath, saveLabel, initialError }: Props) {
  const stripe = useStripe();
  const elements = useElements();
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!stripe || !elements) return;
    setPending(true);
    setError(null);
    try {
      const checked = await elements.submit();
      if (checked.error) {
        setError(checked.error.message ?? "Check the card details.");
        setPending(false);
        return;
      }
      const response = await fetch(startPath, { method: "POST" });
      const body = (await response.json()) as { client_secret?: string; message?: string };
      if (!response.ok || !body.client_secret) {
        setError(body.message ?? "The card could not be saved; try again.");
        setPending(false);
        return;
      }
      const { error: refused } = await stripe.confirmSetup({
        elements,
        clientSecret: body.client_secret,
        confirmParams: { return_url: new URL(returnPath, window.location.origin).toString() },
      });
      // Reached only when it did not go through: otherwise Stripe.js has left for the return URL.
      setError(refused.message ?? "The card could not be saved. Try another card.");
    } catch {
      setError("The card could not be sent; check your connection and try again.");
    }
    setPending(false);
  }

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <div data-testid="payment-element">
        <PaymentElement />
      </div>
      {error && (
        <p role="alert" className="rounded border border-red-200 bg-red-50 p-2 text-sm text-red-800">
          {error}
        </p>
      )}
      <Button type="submit" disabled={pending || !stripe || !elements} className="w-full py-2">
        {pending ? "Saving…" : saveLabel}
      </Button>
    </form>
  );
}
