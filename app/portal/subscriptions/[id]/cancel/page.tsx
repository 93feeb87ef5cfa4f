import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ActionForm, Flash, PortalShell, PrimaryButton } from "@/components/portal/shell";
import { ownSubscription, portalDate, portalSubscription } from "@/lib/portal/view";
import { orNotFound, portalPage } from "../../../_lib/portal";

export const metadata: Metadata = { title: "Cancel subscription", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

const REASON_LABELS: Record<string, string> = {
  too_expensive: "It's too expensive",
  missing_features: "Some features are missing",
  switched_service: "I'm switching to another service",
  unused: "I don't use it enough",
  customer_service: "Customer service was less than expected",
  too_complex: "It's too complex",
  low_quality: "Quality was less than expected",
  other: "Other reason",
};

export default async function CancelPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ error?: string }> }) {
  const { session, settings, returnUrl } = await portalPage();
  const cancel = settings.features.subscription_cancel;
  if (!cancel.enabled) notFound();
  const { id } = await params;
  const { error } = await searchParams;
  const sub = await portalSubscription(session, await orNotFound(ownSubscription(session, id)));
  const back = `/portal/subscriptions/${id}/cancel`;
  return (
    <PortalShell settings={settings} returnUrl={returnUrl}>
      <h1 className="mb-2 text-xl font-semibold">Cancel subscription</h1>
      <Flash error={error} />
      <p className="mb-4 text-sm text-slate-700" data-testid="cancel-mode" data-mode={cancel.mode}>
        {sub.items.map((item) => item.plan.label).join(", ")}:{" "}
        {cancel.mode === "at_period_end"
          ? `your subscription stays active until ${portalDate(sub.currentPeriodEnd)}, then ends. You can keep it until then.`
          : "your subscription ends now."}
      </p>
      <ActionForm action="cancel" back={back} fields={{ subscription: id }} className="space-y-3">
        {cancel.cancellation_reasons.enabled && (
          <fieldset className="space-y-1">
            <legend className="mb-1 text-sm font-medium">Why are you cancelling? (optional)</legend>
            {cancel.cancellation_reasons.options.map((reason) => (
              <label key={reason} className="flex items-center gap-2 text-sm">
                <input type="radio" name="reason" value={reason} /> {REASON_LABELS[reason] ?? reason}
              </label>
            ))}
          </fieldset>
        )}
        <PrimaryButton testId="confirm-cancel">Cancel subscription</PrimaryButton>
      </ActionForm>
      <p className="mt-4 text-sm">
        <a href="/portal" className="underline">
          Keep my subscription
        </a>
      </p>
    </PortalShell>
  );
}
