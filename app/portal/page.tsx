import type { Metadata } from "next";
import { ActionForm, Flash, PortalShell, SecondaryButton } from "@/components/portal/shell";
import { formatAtoms } from "@/lib/money";
import { portalDate, portalRemainingCredit, portalSubscriptions, subscriptionSentence } from "@/lib/portal/view";
import { portalPage } from "./_lib/portal";

export const metadata: Metadata = { title: "Your subscriptions", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

const date = portalDate;
const LIVE = ["trialing", "active", "past_due"];

/** The customer's subscriptions: plan, next invoice, and what the configuration lets them do. */
export default async function PortalHome({ searchParams }: { searchParams: Promise<{ notice?: string; error?: string }> }) {
  const { session, settings, returnUrl } = await portalPage();
  const { notice, error } = await searchParams;
  const [subscriptions, credit] = await Promise.all([portalSubscriptions(session), portalRemainingCredit(session)]);
  const { features } = settings;
  return (
    <PortalShell settings={settings} returnUrl={returnUrl}>
      <h1 className="mb-4 text-xl font-semibold">Subscriptions</h1>
      <Flash notice={notice} error={error} />
      {credit.length > 0 && (
        <p className="mb-4 rounded border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900" data-testid="remaining-credit">
          Remaining credit: {credit.map((entry) => formatAtoms(entry.remainingAtom, entry.currency, "en")).join(", ")}
          <span className="block text-xs text-emerald-800">Applied to your next invoices before any payment.</span>
        </p>
      )}
      {subscriptions.length === 0 && <p className="text-sm text-slate-600">You have no subscriptions.</p>}
      <ul className="space-y-4">
        {subscriptions.map((sub) => {
          const ending = sub.cancelAtPeriodEnd && LIVE.includes(sub.status);
          return (
          <li key={sub.id} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid="portal-subscription" data-id={sub.id}>
            {sub.items.map((item) => (
              <p key={item.id} className="font-medium">
                {item.plan.label}
                <span className="block text-sm font-normal text-slate-600" data-testid="item-price">
                  {item.plan.priceText}
                  {item.plan.terms.billingScheme !== "tiered" && item.quantity > 1 && ` × ${item.quantity}`}
                </span>
                {/* What the quantity costs (amountOf): a tiered price's tiers, never unit amount × quantity. */}
                {item.amountAtom !== null && (item.quantity > 1 || item.plan.terms.billingScheme === "tiered") && (
                  <span className="block text-sm font-normal text-slate-600" data-testid="item-amount" data-atoms={item.amountAtom}>
                    {`${item.quantity} ${item.quantity === 1 ? "unit" : "units"}: ${formatAtoms(item.amountAtom, item.plan.currency, "en")}`}
                    {item.plan.interval !== "once" && ` per ${item.plan.interval}`}
                  </span>
                )}
              </p>
            ))}
            {/* One sentence for the state; a cancel at the period end replaces the renewal and the scheduled changes. */}
            <p
              className={`mt-2 text-sm ${ending ? "rounded bg-amber-100 px-2 py-1 text-amber-900" : ""}`}
              data-testid={ending ? "pending-cancel" : "subscription-state"}
              data-status={sub.status}
            >
              {subscriptionSentence(sub)}
            </p>
            {sub.nextInvoice && !ending && (
              <p className="text-sm text-slate-700" data-testid="next-invoice" data-atoms={sub.nextInvoice.amountAtom}>
                Next invoice: {formatAtoms(sub.nextInvoice.amountAtom, sub.currency, "en")} on {date(sub.nextInvoice.date)}
              </p>
            )}
            {!ending && sub.pendingChanges.map((change) => (
              <div key={change.id} className="mt-2 rounded border border-sky-200 bg-sky-50 p-3 text-sm text-sky-900" data-testid="pending-change" data-id={change.id}>
                <p className="font-medium">Scheduled for {date(change.effectiveAt)}</p>
                <ul className="list-disc pl-5">
                  {change.steps.map((text, index) => (
                    <li key={index}>{text}</li>
                  ))}
                </ul>
                {change.cancellable && features.subscription_update.enabled && (
                  <ActionForm action="cancel-pending-change" back="/portal" fields={{ subscription: sub.id, request: change.id }} className="mt-2">
                    <SecondaryButton testId="cancel-pending-change">Keep my current plan</SecondaryButton>
                  </ActionForm>
                )}
              </div>
            ))}
            <div className="mt-3 flex flex-wrap gap-2">
              {features.subscription_update.enabled && LIVE.includes(sub.status) && sub.items.length === 1 && (
                <a href={`/portal/subscriptions/${sub.id}/change`} className="rounded border border-slate-300 bg-white px-3 py-2 text-sm font-medium" data-testid="change-plan">
                  Change plan
                </a>
              )}
              {features.subscription_cancel.enabled && LIVE.includes(sub.status) && !sub.cancelAtPeriodEnd && (
                <a href={`/portal/subscriptions/${sub.id}/cancel`} className="rounded border border-slate-300 bg-white px-3 py-2 text-sm font-medium" data-testid="cancel-subscription">
                  Cancel subscription
                </a>
              )}
              {features.subscription_cancel.enabled && sub.cancelAtPeriodEnd && LIVE.includes(sub.status) && (
                <ActionForm action="undo-cancel" back="/portal" fields={{ subscription: sub.id }}>
                  <SecondaryButton testId="undo-cancel">Keep my subscription</SecondaryButton>
                </ActionForm>
              )}
              {features.subscription_pause.enabled && sub.status === "active" && (
                <ActionForm action="pause" back="/portal" fields={{ subscription: sub.id }}>
                  <SecondaryButton testId="pause">Pause</SecondaryButton>
                </ActionForm>
              )}
              {features.subscription_pause.enabled && sub.status === "paused" && (
                <ActionForm action="resume" back="/portal" fields={{ subscription: sub.id }}>
                  <SecondaryButton testId="resume">Resume</SecondaryButton>
                </ActionForm>
              )}
            </div>
          </li>
          );
        })}
      </ul>
    </PortalShell>
  );
}
