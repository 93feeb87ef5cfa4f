import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ActionForm, Flash, PortalShell, PrimaryButton } from "@/components/portal/shell";
import { SANDBOX_PAYMENT_METHODS } from "@/lib/payments/schema";
import { portalSubscriptions } from "@/lib/portal/view";
import { portalPage } from "../_lib/portal";

export const metadata: Metadata = { title: "Payment method", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

const LIVE = ["trialing", "active", "past_due", "paused"];

/** Each live subscription's default payment method: sandbox methods only (no real card processing exists). */
export default async function PaymentMethodPage({ searchParams }: { searchParams: Promise<{ notice?: string; error?: string }> }) {
  const { session, settings, returnUrl } = await portalPage();
  if (!settings.features.payment_method_update.enabled) notFound();
  const { notice, error } = await searchParams;
  const subscriptions = (await portalSubscriptions(session)).filter((sub) => LIVE.includes(sub.status));
  return (
    <PortalShell settings={settings} returnUrl={returnUrl}>
      <h1 className="mb-4 text-xl font-semibold">Payment method</h1>
      <Flash notice={notice} error={error} />
      {!session.ctx.livemode && (
        <p role="status" className="mb-4 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          <strong>Sandbox</strong>: sandbox payment methods decide each payment&apos;s outcome. No real money moves.
        </p>
      )}
      {subscriptions.length === 0 && <p className="text-sm text-slate-600">No subscription to pay for.</p>}
      <ul className="space-y-4">
        {subscriptions.map((sub) => (
          <li key={sub.id} className="rounded-lg border border-slate-200 bg-white p-4">
            <p className="mb-2 font-medium">{sub.items.map((item) => item.plan.label).join(", ")}</p>
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
          </li>
        ))}
      </ul>
    </PortalShell>
  );
}
