"use client";

import { dashboardCall } from "@/components/api-client";
import { Time } from "@/components/events/bits";
import { ApiAction } from "@/components/objects/confirm-action";
import { PlanSummary } from "@/components/objects/names";
import { Card, Table } from "@/components/ui";
import type { Subscription } from "@/components/api-types";
import { subscriptionQueryKeys } from "./format";

type PendingChange = Subscription["pending_changes"][number];
type Step = PendingChange["steps"][number];

/** One step in words: what it does to which item. */
function StepText({ accountId, step }: { accountId: string; step: Step }) {
  const price = step.price ? <PlanSummary accountId={accountId} priceId={step.price} quantity={1} /> : null;
  switch (step.type) {
    case "switch_price":
      return <>Switch <code className="font-mono text-xs">{step.item}</code> to {price}</>;
    case "set_quantity":
      return <>Set <code className="font-mono text-xs">{step.item}</code> to quantity {step.quantity}</>;
    case "add_item":
      return <>Add {price} × {step.quantity}</>;
    case "remove_item":
      return <>Remove <code className="font-mono text-xs">{step.item}</code></>;
  }
}

/**
 * The changes scheduled for the period end (change requests applied with `effective: period_end`),
 * each with a Cancel button until the renewal applies it.
 */
export function PendingChanges({ accountId, subscription }: { accountId: string; subscription: Subscription }) {
  if (subscription.pending_changes.length === 0) return null;
  const invalidate = [subscriptionQueryKeys.subscriptions(accountId), ["events", accountId]];
  return (
    <Card title="Pending changes">
      <p className="mb-2 text-sm text-slate-700">Applied by the renewal, before the new period&apos;s invoice; nothing is prorated.</p>
      <Table label="Pending changes" head={["Change request", "Steps", "Takes effect", ""]}>
        {subscription.pending_changes.map((change) => (
          <tr key={change.change_request} className="align-top">
            <td className="px-2 py-2">
              <code className="break-all font-mono text-xs">{change.change_request}</code>
            </td>
            <td className="px-2 py-2">
              <ol className="list-decimal space-y-1 pl-4">
                {change.steps.map((step, index) => (
                  <li key={index}>
                    <StepText accountId={accountId} step={step} />
                  </li>
                ))}
              </ol>
            </td>
            <td className="px-2 py-2">
              <Time iso={change.effective_at} />
            </td>
            <td className="px-2 py-2 text-right">
              <ApiAction
                label="Cancel"
                send={() =>
                  dashboardCall("cancelSubscriptionChangeRequest", {
                    path: { account_id: accountId, subscription_id: subscription.id, change_request_id: change.change_request },
                    body: {},
                  })
                }
                invalidate={invalidate}
                confirm={{
                  title: "Cancel this pending change?",
                  body: "The subscription keeps its items at the renewal; the change request becomes canceled.",
                  label: "Cancel change",
                }}
              />
            </td>
          </tr>
        ))}
      </Table>
    </Card>
  );
}
