import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ActionForm, Flash, PortalShell, PrimaryButton } from "@/components/portal/shell";
import { StripeSetupForm } from "@/components/payments/stripe-setup-form";
import { ServiceError } from "@/lib/errors";
import { listPaymentMethods } from "@/lib/payment-methods/service";
import { setupProcessor } from "@/lib/payment-methods/setup";
import { SANDBOX_PAYMENT_METHODS } from "@/lib/payments/schema";
import { portalSettleSetup } from "@/lib/portal/changes";
import type { PortalSession } from "@/lib/portal/sessions";
import { portalSubscriptions } from "@/lib/portal/view";
import { portalPage } from "../_lib/portal";

export const metadata: Metadata = { title: "Payment method", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

const LIVE = ["trialing", "active", "past_due", "paused"];

type Query = { notice?: string; error?: string; setup_intent?: string; redirect_status?: string };

/**
 * Stripe.js's return after `confirmSetup` (`?setup_intent=seti_…&redirect_status=…`): the setup is
 * re-read at Stripe and recorded once, whether this or the webhook comes first, whatever
 * `redirect_status` says. Answers what the page says.
 */
async function settleReturn(session: PortalSession, query: Query): Promise<{ notice?: string; error?: string }> {
  if (typeof query.setup_intent !== "string") return {};
  try {
    const outcome = await portalSettleSetup(session, query.setup_intent);
    if (outcome.status === "succeeded") return { notice: "Your card is saved; your subscriptions are paid with it from now on." };
    if (outcome.status === "unknown") return { error: "This card setup is not yours; nothing was changed." };
  } catch (error) {
    // Stripe unreachable for now: its webhook records the card; the page says it is under way.
    if (!(error instanceof ServiceError)) throw error;
  }
  return query.redirect_status === "failed" ? { error: "The card could not be saved. Try another card." } : { notice: "Your card is being saved. Reload this page in a moment." };
}

/** Each live subscription's default payment method: a card saved through Stripe.js when the account is connected to Stripe, sandbox methods on a sandbox account. */
export default async function PaymentMethodPage({ searchParams }: { searchParams: Promise<Query> }) {
  const { session, settings, returnUrl } = await portalPage();
  if (!settings.features.payment_method_update.enabled) notFound();
  const query = await searchParams;
  const returned = await settleReturn(session, query);
  const notice = returned.notice ?? query.notice;
  const error = returned.error ?? query.error;
  const [subscriptions, processor, saved] = await Promise.all([
    portalSubscriptions(session).then((all) => all.filter((sub) => LIVE.includes(sub.status))),
    setupProcessor(session.ctx.accountId),
    listPaymentMethods({ ctx: session.ctx, input: { customerId: session.customerId } }),
  ]);
  const labelOf = (method: string | null) => {
    const card = saved.find((candidate) => candidate.id === method);
    if (!card) return method ?? "none";
    return `${card.brand ? card.brand[0]!.toUpperCase() + card.brand.slice(1) : "Card"} •••• ${card.last4 ?? "????"}${card.expMonth && card.expYear ? ` (expires ${String(card.expMonth).padStart(2, "0")}/${card.expYear})` : ""}`;
  };
  return (
    <PortalShell settings={settings} returnUrl={returnUrl}>
      <h1 className="mb-4 text-xl font-semibold">Payment method</h1>
      <Flash notice={notice} error={error} />
      {!session.ctx.livemode && (
        <p role="status" className="mb-4 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          <strong>Sandbox</strong>: {processor ? "Stripe test mode: use Stripe's test cards." : "sandbox payment methods decide each payment's outcome."} No real money moves.
        </p>
      )}
      {processor?.clientKey && (
        <section className="mb-6 rounded-lg border border-slate-200 bg-white p-4" aria-label="New card">
          <h2 className="mb-1 font-medium">New card</h2>
          <p className="mb-3 text-sm text-slate-600">Saved for your subscriptions&apos; payments; it becomes the card each of them is paid with.</p>
          <StripeSetupForm
            publishableKey={processor.clientKey}
            startPath="/portal/payment-method/setup"
            returnPath="/portal/payment-method"
            saveLabel="Save card"
            initialError={null}
          />
        </section>
      )}
      {subscriptions.length === 0 && <p className="text-sm text-slate-600">No subscription to pay for.</p>}
      <ul className="space-y-4">
        {subscriptions.map((sub) => (
          <li key={sub.id} className="rounded-lg border border-slate-200 bg-white p-4" data-testid="subscription-payment-method">
            <p className="mb-2 font-medium">{sub.items.map((item) => item.plan.label).join(", ")}</p>
            {processor ? (
              <p className="text-sm">
                Pays with <span data-testid="current-payment-method">{labelOf(sub.defaultPaymentMethod)}</span>
              </p>
            ) : (
              <ActionForm action="payment-method" back="/portal/payment-method" fields={{ subscription: sub.id }} className="flex flex-wrap items-end gap-2">
                <label className="text-sm">
                  <span className="block">Pays with</span>
                  <select name="payment_method" defaultValue={sub.defaultPaymentMethod ?? ""} className="mt-1 max-w-full rounded border border-slate-300 px-2 py-1" data-testid="payment-method">
                    <option value="" disabled>
                      Choose a method
                    </option>
                    {SANDBOX_PAYMENT_METHODS.map((method) => (
                      <option key={method} value={method}>
                        {method}
                      </option>
                    ))}
                  </select>
                </label>
                <PrimaryButton testId="save-payment-method">Save</PrimaryButton>
              </ActionForm>
            )}
          </li>
        ))}
      </ul>
    </PortalShell>
  );
}
