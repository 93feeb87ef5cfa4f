"use client";

import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import type { Stripe, StripeElementLocale } from "@stripe/stripe-js";
// The pure entry: `@stripe/stripe-js`'s main one loads js.stripe.com as soon as it is imported,
// on every page that bundles this form (a sandbox checkout too); this one only when loadStripe runs.
import { loadStripe } from "@stripe/stripe-js/pure";
import { useState, type FormEvent } from "react";
import { Button, Field, inputClass } from "@/components/ui";

/** What the page's server action answers to Pay: the client secret of the processor's charge, or why not. */
export type StartPaymentResult = { ok: true; clientSecret: string } | { ok: false; message: string; emailError?: string };
export type StartPayment = (email: string | null) => Promise<StartPaymentResult>;

export type StripePaymentLabels = { paying: string; failed: string; offline: string };

/** One Stripe.js instance per publishable key for the page's life (loadStripe must not run on every render). */
const instances = new Map<string, Promise<Stripe | null>>();
export function stripeFor(publishableKey: string): Promise<Stripe | null> {
  let instance = instances.get(publishableKey);
  if (!instance) {
    instance = loadStripe(publishableKey);
    instances.set(publishableKey, instance);
  }
  return instance;
}

type Props = {
  publishableKey: string;
  amountAtom: number;
  currency: string;
  locale?: StripeElementLocale;
  payLabel: string;
  labels: StripePaymentLabels;
  /** Checkout asks for the email (locked when the merchant set it); the invoice page does not. */
  email: { label: string; locked: string | null } | null;
  start: StartPayment;
  /** Where Stripe.js sends the browser after confirming (this page: it re-reads the payment at Stripe). */
  returnPath: string;
  /** Set when the customer came back from an authentication that did not succeed. */
  initialError: string | null;
  /**
   * `payment` (default): the client secret is a PaymentIntent's, confirmed with confirmPayment;
   * `setup` (a subscription checkout with nothing due now): a SetupIntent's, confirmed with confirmSetup.
   */
  collect?: "payment" | "setup";
  /** The PaymentIntent also saves the card (`setup_future_usage: off_session`): Stripe.js's Elements must say so too. */
  savesCard?: boolean;
};

/**
 * The card form of the hosted pages on an account connected to Stripe: Stripe.js's Payment
 * Element in deferred-intent mode (the amount is known, the PaymentIntent is made at Pay), then
 * `confirmPayment` with the client secret the server answered (a trial's checkout: deferred setup
 * mode and `confirmSetup`, the SetupIntent made at Pay). 3-D Secure is Stripe.js's. The
 * page never decides that the payment succeeded: Stripe.js leaves for the return URL, where the
 * server re-reads the payment at Stripe.
 */
export function StripePaymentForm(props: Props) {
  return (
    <Elements
      stripe={stripeFor(props.publishableKey)}
      options={
        props.collect === "setup"
          ? { mode: "setup", currency: props.currency, locale: props.locale }
          : { mode: "payment", amount: props.amountAtom, currency: props.currency, locale: props.locale, ...(props.savesCard ? { setupFutureUsage: "off_session" as const } : {}) }
      }
    >
      <PaymentForm {...props} />
    </Elements>
  );
}

function PaymentForm({ payLabel, labels, email, start, returnPath, initialError, collect }: Props) {
  const stripe = useStripe();
  const elements = useElements();
  const [error, setError] = useState<string | null>(initialError);
  const [emailError, setEmailError] = useState<string | undefined>();
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!stripe || !elements) return;
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    setEmailError(undefined);
    try {
      // The Payment Element checks what the customer typed before anything is made at Stripe.
      const checked = await elements.submit();
      if (checked.error) {
        setError(checked.error.message ?? labels.failed);
        setPending(false);
        return;
      }
      const started = await start(email && email.locked === null ? String(form.get("email") ?? "").trim() : null);
      if (!started.ok) {
        setEmailError(started.emailError);
        setError(started.message);
        setPending(false);
        return;
      }
      const confirmParams = { return_url: new URL(returnPath, window.location.origin).toString() };
      const { error: refused } =
        collect === "setup"
          ? await stripe.confirmSetup({ elements, clientSecret: started.clientSecret, confirmParams })
          : await stripe.confirmPayment({ elements, clientSecret: started.clientSecret, confirmParams });
      // Reached only when it did not go through (declined, authentication failed): otherwise
      // Stripe.js has left for the return URL.
      setError(refused.message ?? labels.failed);
    } catch {
      setError(labels.offline);
    }
    setPending(false);
  }

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      {email && (
        <Field label={email.label} error={emailError} hint={email.locked !== null ? "Set by the merchant for this checkout." : undefined}>
          {email.locked !== null ? (
            <input name="email" type="email" value={email.locked} readOnly className={`${inputClass} bg-slate-100`} />
          ) : (
            <input name="email" type="email" autoComplete="email" required className={inputClass} />
          )}
        </Field>
      )}
      <div data-testid="payment-element">
        <PaymentElement />
      </div>
      {error && (
        <p role="alert" className="rounded border border-red-200 bg-red-50 p-2 text-sm text-red-800">
          {error}
        </p>
      )}
      <Button type="submit" disabled={pending || !stripe || !elements} className="w-full py-2">
        {pending ? labels.paying : payLabel}
      </Button>
    </form>
  );
}
