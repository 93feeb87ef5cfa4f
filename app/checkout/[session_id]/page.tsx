import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import type { ReactNode } from "react";
import { CheckoutForm, type MethodOption } from "@/components/checkout/checkout-form";
import { formatMoney } from "@/components/invoices/format";
import { StripePaymentForm } from "@/components/payments/stripe-payment-form";
import { getHostedCheckout, type HostedCheckout } from "@/lib/checkout/hosted";
import { settleCheckoutReturn, settleCheckoutSetupReturn } from "@/lib/checkout/on-session";
import { ServiceError } from "@/lib/errors";
import { startCheckoutPaymentAction } from "./actions";

export const metadata: Metadata = { title: "Checkout", robots: { index: false, follow: false } };
// Always the session as it stands now (status, expiry on the account's clock).
export const dynamic = "force-dynamic";

/** The sandbox methods a checkout takes (a transfer paid in parts is not one of them). */
const METHODS: MethodOption[] = [
  { value: "pm_sandbox_succeeds", label: "Sandbox card: succeeds (pm_sandbox_succeeds)" },
  { value: "pm_sandbox_declined", label: "Sandbox card: declined (pm_sandbox_declined)" },
  { value: "pm_sandbox_requires_action", label: "Sandbox card: requires authentication (pm_sandbox_requires_action)" },
  { value: "pm_sandbox_refund_fails", label: "Sandbox card: succeeds, refunds fail (pm_sandbox_refund_fails)" },
];

function Frame({ checkout, children }: { checkout: HostedCheckout; children: ReactNode }) {
  return (
    <main className="mx-auto max-w-lg px-4 py-10">
      {!checkout.livemode && (
        <p role="status" className="mb-4 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          <strong>Sandbox checkout</strong>: a test page. No real money moves; sandbox payment methods decide the outcome.
        </p>
      )}
      <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <p className="text-sm text-slate-500">Pay</p>
        <h1 className="mb-4 text-xl font-semibold">{checkout.merchantName}</h1>
        {children}
      </div>
    </main>
  );
}

function Summary({ checkout }: { checkout: HostedCheckout }) {
  const money = (atoms: number) => formatMoney(atoms, checkout.currency);
  const interval = checkout.lines[0]?.interval ?? null;
  const trial = checkout.mode === "subscription" && checkout.trialPeriodDays !== null;
  return (
    <section aria-label="Order summary" className="mb-6">
      <table className="w-full text-sm" aria-label="Line items">
        <thead className="sr-only">
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Amount</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {checkout.lines.map((line, index) => (
            <tr key={index}>
              <td className="py-2 pr-2">
                <span className="font-medium">{line.description}</span>
                {line.quantity > 1 && (
                  <span className="block text-xs text-slate-500">
                    {/* A tiered price has no single unit amount (0): its amount is the tiers' for the quantity. */}
                    {line.unitAmountAtom > 0 ? `${line.quantity} × ${money(line.unitAmountAtom)}` : `${line.quantity} units`}
                  </span>
                )}
              </td>
              <td className="whitespace-nowrap py-2 text-right tabular-nums">
                {money(line.amountAtom)}
                {line.interval && <span className="text-slate-500"> / {line.interval}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="mt-3 flex items-baseline justify-between border-t border-slate-200 pt-3">
        <span className="font-medium">{trial ? "Due today" : "Total"}</span>
        <span data-testid="checkout-total" className="text-lg font-semibold tabular-nums">
          {money(trial ? 0 : checkout.amountTotalAtom)}
        </span>
      </div>
      {trial && (
        <p className="mt-1 text-sm text-slate-600">
          {checkout.trialPeriodDays}-day free trial, then {money(checkout.amountTotalAtom)} / {interval}.
        </p>
      )}
      {!trial && interval && <p className="mt-1 text-sm text-slate-600">Then {money(checkout.amountTotalAtom)} every {interval}.</p>}
    </section>
  );
}

function BackLink({ href, children }: { href: string | null; children: ReactNode }) {
  if (!href) return null;
  return (
    <a className="text-sm font-medium text-indigo-700 underline" href={href}>
      {children}
    </a>
  );
}

const LABELS = {
  paying: "Processing…",
  failed: "The payment did not go through. Try another card.",
  offline: "The payment could not be sent; check your connection and try again.",
};

/**
 * Stripe.js's return (`?payment_intent=pi_…&redirect_status=…`, or a trial's
 * `?setup_intent=seti_…`): the payment or setup is re-read at Stripe and applied (the session
 * completes once, whether this or the webhook comes first). Answers what
 * the page says when the session is still open afterwards.
 */
async function settleReturn(sessionId: string, query: Record<string, string | string[] | undefined>): Promise<string | null> {
  const payment = typeof query.payment_intent === "string" ? query.payment_intent : null;
  // A trial's card, saved with a SetupIntent (`?setup_intent=seti_…`): re-read the same way.
  const setup = typeof query.setup_intent === "string" ? query.setup_intent : null;
  if (payment === null && setup === null) return null;
  try {
    if (payment !== null) await settleCheckoutReturn({ id: sessionId, reference: payment });
    else await settleCheckoutSetupReturn({ id: sessionId, reference: setup! });
  } catch (error) {
    // Stripe unreachable for now: its webhook settles the payment; the page says it is under way.
    if (!(error instanceof ServiceError)) throw error;
  }
  return query.redirect_status === "failed" ? LABELS.failed : "Your payment is being processed. Reload this page in a moment.";
}

/** The hosted checkout page: public, reached by the session's `url` (the unguessable id is the capability). */
export default async function CheckoutPage({
  params,
  searchParams,
}: {
  params: Promise<{ session_id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { session_id } = await params;
  let checkout = await getHostedCheckout(session_id);
  if (!checkout) notFound();
  const query = await searchParams;
  const returned = checkout.status === "open" ? await settleReturn(session_id, query) : null;
  if (returned !== null) checkout = (await getHostedCheckout(session_id))!;
  // Paid (Stripe says so): Stripe.js's return goes on to the merchant, as the sandbox page does,
  // also when Stripe's webhook completed the session before the browser came back.
  if (checkout.status === "complete" && (typeof query.payment_intent === "string" || typeof query.setup_intent === "string")) redirect(checkout.successUrl);

  if (checkout.status === "expired") {
    return (
      <Frame checkout={checkout}>
        <h2 className="mb-2 text-lg font-semibold">This checkout has expired</h2>
        <p className="mb-4 text-sm text-slate-600">Nothing was charged. Start again from the merchant&apos;s site.</p>
        <BackLink href={checkout.cancelUrl}>Return to {checkout.merchantName}</BackLink>
      </Frame>
    );
  }
  if (checkout.status === "complete") {
    return (
      <Frame checkout={checkout}>
        <h2 className="mb-2 text-lg font-semibold">This checkout is complete</h2>
        <p className="mb-4 text-sm text-slate-600">It has been paid; there is nothing more to do here.</p>
        <BackLink href={checkout.successUrl}>Continue to {checkout.merchantName}</BackLink>
      </Frame>
    );
  }

  const trial = checkout.mode === "subscription" && checkout.trialPeriodDays !== null;
  const payLabel = trial
    ? "Start trial"
    : checkout.mode === "subscription"
      ? `Subscribe and pay ${formatMoney(checkout.amountTotalAtom, checkout.currency)}`
      : `Pay ${formatMoney(checkout.amountTotalAtom, checkout.currency)}`;
  return (
    <Frame checkout={checkout}>
      <Summary checkout={checkout} />
      {checkout.publishableKey !== null ? (
        <StripePaymentForm
          publishableKey={checkout.publishableKey}
          amountAtom={checkout.amountTotalAtom}
          currency={checkout.currency}
          payLabel={payLabel}
          labels={LABELS}
          email={{ label: "Email", locked: checkout.lockedEmail }}
          start={startCheckoutPaymentAction.bind(null, checkout.id)}
          returnPath={`/checkout/${checkout.id}`}
          initialError={returned}
          collect={checkout.collect}
          savesCard={checkout.savesCard}
        />
      ) : checkout.livemode ? (
        <p role="alert" className="rounded border border-slate-300 bg-slate-50 p-3 text-sm text-slate-800">
          This is a live checkout, and its account has no payment processor connected: it cannot take payments. Use a sandbox account to try checkout.
        </p>
      ) : (
        <CheckoutForm sessionId={checkout.id} lockedEmail={checkout.lockedEmail} methods={METHODS} payLabel={payLabel} />
      )}
      {checkout.cancelUrl && (
        <p className="mt-4 text-center">
          <BackLink href={checkout.cancelUrl}>Cancel and return to {checkout.merchantName}</BackLink>
        </p>
      )}
    </Frame>
  );
}
