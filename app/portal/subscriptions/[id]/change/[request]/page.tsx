import type { Metadata } from "next";
import { ActionForm, Flash, PortalShell, PrimaryButton, SecondaryButton } from "@/components/portal/shell";
import { formatAtoms } from "@/lib/money";
import { portalChangeRequest } from "@/lib/portal/changes";
import { ownSubscription, portalDate, stepLabels } from "@/lib/portal/view";
import { orNotFound, portalPage } from "../../../../_lib/portal";

export const metadata: Metadata = { title: "Review the change", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

/**
 * The amounts of the change request this session previewed: the very numbers the API's
 * change-request preview holds, as they will be billed (`amount_due_now_total_atom`, the credit of
 * `proration_amount_atom`, `next_invoice_total_atom`: discount and taxes included); confirming applies it.
 */
export default async function ReviewChangePage({ params, searchParams }: { params: Promise<{ id: string; request: string }>; searchParams: Promise<{ error?: string }> }) {
  const { session, settings, returnUrl } = await portalPage();
  const { id, request: requestId } = await params;
  const { error } = await searchParams;
  const request = await orNotFound(portalChangeRequest(session, { subscription: id, id: requestId }));
  const money = (atoms: number) => formatAtoms(atoms, request.currency, "en");
  const steps = await stepLabels(session, request.steps, request.currency);
  const open = request.status === "open";
  // A period-end change (the configuration's rule: a downgrade) starts with the next period: nothing is due now.
  const later = request.effective === "period_end";
  // The totals the invoices will carry (discount and taxes); a request made before they existed shows its amounts.
  const dueNow = request.amountDueNowTotalAtom ?? request.amountDueNowAtom;
  const nextInvoice = request.nextInvoiceTotalAtom ?? request.nextInvoiceAmountAtom;
  const periodEnd = request.effectiveAt ?? (await ownSubscription(session, id)).subscription.currentPeriodEnd;
  return (
    <PortalShell settings={settings} returnUrl={returnUrl}>
      <h1 className="mb-2 text-xl font-semibold">Review the change</h1>
      <Flash error={error ?? request.lastError ?? undefined} />
      <ul className="mb-4 list-disc pl-5 text-sm">
        {steps.map((text, index) => (
          <li key={index}>{text}</li>
        ))}
      </ul>
      {later && (
        <p className="mb-4 rounded bg-sky-50 p-3 text-sm text-sky-900" data-testid="effective-at" data-effective="period_end">
          This change takes effect at the end of the current period, on {portalDate(periodEnd)}. Until then you keep your current plan.
        </p>
      )}
      <dl className="mb-4 space-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm">
        <div className="flex justify-between gap-4">
          <dt>{later ? "Due now" : `Due now (prorated to ${portalDate(request.prorationDate)})`}</dt>
          <dd className="font-semibold tabular-nums" data-testid="amount-due-now" data-atoms={dueNow}>
            {money(dueNow)}
          </dd>
        </div>
        {request.prorationAmountAtom < 0 && (
          <div className="flex justify-between gap-4">
            <dt>Credited to your balance (unused time)</dt>
            <dd className="font-semibold tabular-nums" data-testid="proration-credit" data-atoms={-request.prorationAmountAtom}>
              {money(-request.prorationAmountAtom)}
            </dd>
          </div>
        )}
        <div className="flex justify-between gap-4">
          <dt>Next invoice</dt>
          <dd className="font-semibold tabular-nums" data-testid="next-invoice-amount" data-atoms={nextInvoice}>
            {money(nextInvoice)}
          </dd>
        </div>
      </dl>
      {/* What the change's state means to the customer, in one sentence: never the internal status. */}
      <p className="mb-4 text-sm text-slate-700" data-testid="change-request" data-id={request.id} data-status={request.status}>
        {
          {
            open: "Nothing changes until you confirm.",
            partially_applied: "This change is under way.",
            applied: "This change is done.",
            scheduled: `This change is scheduled for ${portalDate(periodEnd)}.`,
            canceled: "This change was not made.",
          }[request.status]
        }
      </p>
      {open && (
        <div className="flex flex-wrap gap-2">
          <ActionForm action="confirm-switch" back={`/portal/subscriptions/${id}/change/${request.id}`} fields={{ subscription: id, request: request.id }}>
            <PrimaryButton testId="confirm-change">{later ? `Change on ${portalDate(periodEnd)}` : dueNow > 0 ? `Pay ${money(dueNow)} and change` : "Confirm the change"}</PrimaryButton>
          </ActionForm>
          <ActionForm action="discard-switch" back={`/portal/subscriptions/${id}/change/${request.id}`} fields={{ subscription: id, request: request.id }}>
            <SecondaryButton testId="discard-change">Back</SecondaryButton>
          </ActionForm>
        </div>
      )}
    </PortalShell>
  );
}
