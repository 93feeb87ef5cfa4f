import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ActionForm, Flash, PortalShell, PrimaryButton } from "@/components/portal/shell";
import { ownSubscription, planLabel, portalSubscription } from "@/lib/portal/view";
import { orNotFound, portalPage } from "../../../_lib/portal";

export const metadata: Metadata = { title: "Change plan", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

/** Choose a plan (the configuration's prices) and a quantity; the next page shows what it costs, from the API's preview. */
export default async function ChangePlanPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ error?: string }> }) {
  const { session, settings, returnUrl } = await portalPage();
  const update = settings.features.subscription_update;
  if (!update.enabled) notFound();
  const { id } = await params;
  const { error } = await searchParams;
  const sub = await portalSubscription(session, await orNotFound(ownSubscription(session, id)));
  const item = sub.items[0];
  if (!item || sub.items.length > 1) notFound();
  const offered = await Promise.all(
    [...new Set([item.plan.priceId, ...update.prices])].map((price) => planLabel(session, price, sub.currency).catch(() => null)),
  );
  const plans = offered.filter((plan) => plan !== null && plan.currency === sub.currency);
  return (
    <PortalShell settings={settings} returnUrl={returnUrl}>
      <h1 className="mb-2 text-xl font-semibold">Change plan</h1>
      <Flash error={error} />
      <p className="mb-4 text-sm text-slate-700">
        Current plan: <strong>{item.plan.label}</strong>
        {item.quantity > 1 && ` × ${item.quantity}`}
      </p>
      <ActionForm action="preview-switch" back={`/portal/subscriptions/${id}/change`} fields={{ subscription: id }} className="space-y-4">
        <fieldset className="space-y-2">
          <legend className="mb-1 text-sm font-medium">Plan</legend>
          {plans.map((plan) => (
            <label key={plan!.priceId} className="flex items-start gap-2 rounded border border-slate-200 bg-white p-3 text-sm">
              <input type="radio" name="price" value={plan!.priceId} defaultChecked={plan!.priceId === item.plan.priceId} data-testid={`plan-${plan!.priceId}`} />
              <span>
                <span className="font-medium">{plan!.label}</span>
                <span className="block text-slate-600">
                  {plan!.priceText}
                  {plan!.priceId === item.plan.priceId && " (current)"}
                </span>
              </span>
            </label>
          ))}
        </fieldset>
        {update.quantity.enabled && (
          <label className="block text-sm">
            <span className="font-medium">Quantity</span>
            <input
              type="number"
              name="quantity"
              min={update.quantity.minimum}
              max={update.quantity.maximum}
              defaultValue={item.quantity}
              className="mt-1 block w-32 rounded border border-slate-300 px-2 py-1"
              data-testid="quantity"
            />
          </label>
        )}
        <PrimaryButton testId="review-change">Review the change</PrimaryButton>
      </ActionForm>
    </PortalShell>
  );
}
