import type { ServiceContext } from "@/lib/context";
import { syncEntitlements } from "@/lib/entitlements/core";
import type { EventType } from "@/lib/events/catalogue";
import { emitEvent } from "@/lib/events/emit";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { serializeSubscription, type SubscriptionWithItems } from "./serialize";

/**
 * The one place a subscription's change is recorded (every lifecycle verb, item change, change
 * request, renewal, trial end, dunning status change, pause and cancel come through here): its
 * `customer.subscription.*` event, then, in the same transaction, the customer's
 * `customer.entitlements.updated` when the change altered them.
 */
export async function recordSubscriptionChange(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  type: EventType,
  after: SubscriptionWithItems,
  before: SubscriptionWithItems | null,
): Promise<void> {
  await emitEvent(tx, ctx, {
    type,
    aggregateId: after.subscription.id,
    data: serializeSubscription(after, ctx.livemode),
    previousData: before ? serializeSubscription(before, ctx.livemode) : null,
  });
  await syncEntitlements(tx, ctx, after.subscription.customerId);
}
