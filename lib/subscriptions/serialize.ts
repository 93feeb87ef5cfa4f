import type { subscriptionItems, subscriptions } from "@/db/schema";
import type { SubscriptionItemObject, SubscriptionObject } from "./schema";

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type SubscriptionItemRow = typeof subscriptionItems.$inferSelect;

/** A subscription with its live (not removed) items in creation order. */
export type SubscriptionWithItems = { subscription: SubscriptionRow; items: SubscriptionItemRow[] };

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function serializeSubscriptionItem(row: SubscriptionItemRow): SubscriptionItemObject {
  return {
    id: row.id,
    object: "subscription_item",
    subscription: row.subscriptionId,
    price: row.priceId,
    quantity: row.quantity,
    tax_rates: row.taxRateIds,
  };
}

/** The subscription as the API shows it, and as event data records it. */
export function serializeSubscription({ subscription: s, items }: SubscriptionWithItems, livemode: boolean): SubscriptionObject {
  return {
    id: s.id,
    object: "subscription",
    customer: s.customerId,
    status: s.status,
    currency: s.currency,
    // The items' tax rates are on the item objects (`GET …/items`), keeping the subscription's shape.
    items: items.map((item) => ({ id: item.id, price: item.priceId, quantity: item.quantity })),
    current_period_start: s.currentPeriodStart.toISOString(),
    current_period_end: s.currentPeriodEnd.toISOString(),
    trial_end: iso(s.trialEnd),
    cancel_at_period_end: s.cancelAtPeriodEnd,
    pending_changes: s.pendingChanges.map((change) => ({
      change_request: change.change_request,
      steps: change.steps.map((step) => ({ type: step.type, item: step.item, price: step.price, quantity: step.quantity, state: step.state })),
      effective_at: s.currentPeriodEnd.toISOString(),
    })),
    cancelled_at: iso(s.cancelledAt),
    paused_at: iso(s.pausedAt),
    latest_invoice: s.latestInvoiceId,
    default_payment_method: s.defaultPaymentMethod,
    collection_method: s.collectionMethod,
    days_until_due: s.daysUntilDue,
    metadata: s.metadata,
    livemode,
    created: s.created.toISOString(),
    updated: s.updated.toISOString(),
  };
}
