import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { accounts, customerEntitlements, features, prices, productFeatures, subscriptionItems, subscriptions } from "@/db/schema";
import type { EntitlementSnapshotItem } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { emitEvent } from "@/lib/events/emit";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { GRANTING_STATUSES, grantsEntitlements } from "./rules";
import type { EntitlementItem } from "./schema";

/*
 * Entitlements are computed live from the subscriptions (one query, the rule in rules.ts), and
 * announced by `customer.entitlements.updated` whenever a change alters them: syncEntitlements
 * runs in the transaction of every subscription change (lib/subscriptions/record.ts), of every
 * product feature attached or detached, and of the clock's grace expiry (grace.ts).
 */

/** The account's `entitlement_past_due_grace_days`: the one reader of the setting. */
export async function pastDueGraceDays(executor: Executor, accountId: string): Promise<number> {
  const [row] = await executor.select({ days: accounts.entitlementPastDueGraceDays }).from(accounts).where(eq(accounts.id, accountId));
  return row?.days ?? 7;
}

/** The customer's entitlements at `now`: each feature once, from its oldest granting subscription, by lookup_key. */
export async function computeEntitlements(executor: Executor, accountId: string, customerId: string, now: Date): Promise<EntitlementItem[]> {
  const [graceDays, rows] = await Promise.all([
    pastDueGraceDays(executor, accountId),
    executor
      .select({
        feature: features.id,
        lookupKey: features.lookupKey,
        subscription: subscriptions.id,
        status: subscriptions.status,
        pastDueSince: subscriptions.pastDueSince,
      })
      .from(subscriptions)
      .innerJoin(subscriptionItems, and(eq(subscriptionItems.subscriptionId, subscriptions.id), isNull(subscriptionItems.deletedAt)))
      .innerJoin(prices, eq(prices.id, subscriptionItems.priceId))
      .innerJoin(productFeatures, eq(productFeatures.productId, prices.productId))
      .innerJoin(features, eq(features.id, productFeatures.featureId))
      .where(
        and(
          eq(subscriptions.accountId, accountId),
          eq(subscriptions.customerId, customerId),
          inArray(subscriptions.status, [...GRANTING_STATUSES]),
        ),
      )
      .orderBy(asc(features.lookupKey), asc(subscriptions.created), asc(subscriptions.id)),
  ]);
  const items: EntitlementItem[] = [];
  for (const row of rows) {
    if (!grantsEntitlements(row, now, graceDays)) continue;
    if (items.at(-1)?.feature === row.feature) continue;
    items.push({ feature: row.feature, lookup_key: row.lookupKey, source_subscription: row.subscription });
  }
  return items;
}

const plain = (items: readonly EntitlementItem[]) =>
  items.map((item) => ({ feature: item.feature, lookup_key: item.lookup_key, source_subscription: item.source_subscription }));

/** The entitlements object, as the API shows it and events record it. */
export const entitlementsState = (customerId: string, items: readonly EntitlementItem[], livemode: boolean) => ({
  object: "customer_entitlements" as const,
  customer: customerId,
  items: plain(items),
  livemode,
});

/**
 * Recomputes the customer's entitlements in the change's transaction and, when they differ from
 * the last announced ones, stores them and emits `customer.entitlements.updated` (data: after,
 * previous_data: before). The snapshot row is locked, so concurrent changes announce in order.
 * Returns whether they changed.
 */
export async function syncEntitlements(tx: ChangeTransaction, ctx: ServiceContext, customerId: string): Promise<boolean> {
  const [snapshot] = await tx.select().from(customerEntitlements).where(eq(customerEntitlements.customerId, customerId)).for("update");
  const before = snapshot?.items ?? [];
  const after = await computeEntitlements(tx, ctx.accountId, customerId, ctx.now());
  if (JSON.stringify(plain(before)) === JSON.stringify(after)) return false;
  const event = await emitEvent(tx, ctx, {
    type: "customer.entitlements.updated",
    aggregateId: customerId,
    data: entitlementsState(customerId, after, ctx.livemode),
    previousData: entitlementsState(customerId, before, ctx.livemode),
  });
  // An entitlement kept from the same subscription keeps the event that granted it.
  const items: EntitlementSnapshotItem[] = after.map((item) => {
    const kept = before.find((old) => old.feature === item.feature && old.source_subscription === item.source_subscription);
    return { ...item, granted_by_event: kept?.granted_by_event ?? event.id };
  });
  await tx
    .insert(customerEntitlements)
    .values({ customerId, accountId: ctx.accountId, items, updated: ctx.now() })
    .onConflictDoUpdate({ target: customerEntitlements.customerId, set: { items, updated: ctx.now() } });
  return true;
}

/** The last announced entitlements, with the event that granted each (the dashboard's customer page). */
export async function announcedEntitlements(executor: Executor, accountId: string, customerId: string): Promise<EntitlementSnapshotItem[]> {
  const [row] = await executor
    .select({ items: customerEntitlements.items })
    .from(customerEntitlements)
    .where(and(eq(customerEntitlements.accountId, accountId), eq(customerEntitlements.customerId, customerId)));
  return row?.items ?? [];
}
