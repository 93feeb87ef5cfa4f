import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { accounts, customerEntitlements, customers, features, prices, productFeatures, subscriptionItems, subscriptions } from "@/db/schema";
import type { EntitlementSnapshotItem } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { emitEvent } from "@/lib/events/emit";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { rowsOf } from "@/lib/rows";
import type { SubscriptionStatus } from "@/lib/subscriptions/statuses";
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

type Candidate = { feature: string; lookupKey: string; subscription: string; status: SubscriptionStatus; pastDueSince: Date | null };

/** Candidates sorted by lookup_key, then the subscription's age: each feature once, from its oldest granting subscription. */
function pick(rows: readonly Candidate[], now: Date, graceDays: number): EntitlementItem[] {
  const items: EntitlementItem[] = [];
  for (const row of rows) {
    if (!grantsEntitlements(row, now, graceDays)) continue;
    if (items.at(-1)?.feature === row.feature) continue;
    items.push({ feature: row.feature, lookup_key: row.lookupKey, source_subscription: row.subscription });
  }
  return items;
}

/** The customer's entitlements at `now` (inside a change's transaction). */
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
  return pick(rows, now, graceDays);
}

type ReadRow = {
  grace: number;
  announced: EntitlementSnapshotItem[] | null;
  feature: string | null;
  lookup_key: string | null;
  subscription: string | null;
  status: SubscriptionStatus | null;
  // A Date or its text, by driver (postgres.js, PGlite).
  past_due_since: Date | string | null;
};

/**
 * The API's read in one statement (one round trip): the live customer, the account's grace, the
 * announced snapshot and the candidates, the same join as computeEntitlements. Null: no such customer.
 */
export async function readEntitlements(
  executor: Executor,
  accountId: string,
  customerId: string,
  now: Date,
): Promise<{ live: EntitlementItem[]; announced: EntitlementSnapshotItem[] } | null> {
  const rows = rowsOf<ReadRow>(
    await executor.execute(sql`
      select a.entitlement_past_due_grace_days as grace, ce.items as announced,
        g.feature, g.lookup_key, g.subscription, g.status, g.past_due_since
      from ${customers} c
      join ${accounts} a on a.id = c.account_id
      left join ${customerEntitlements} ce on ce.customer_id = c.id
      left join lateral (
        select f.id as feature, f.lookup_key, s.id as subscription, s.status, s.past_due_since, s.created
        from ${subscriptions} s
        join ${subscriptionItems} si on si.subscription_id = s.id and si.deleted_at is null
        join ${prices} p on p.id = si.price_id
        join ${productFeatures} pf on pf.product_id = p.product_id
        join ${features} f on f.id = pf.feature_id
        where s.account_id = c.account_id and s.customer_id = c.id and s.status::text in ('trialing', 'active', 'past_due')
      ) g on true
      where c.account_id = ${accountId} and c.id = ${customerId} and c.deleted_at is null
      order by g.lookup_key, g.created, g.subscription`),
  );
  const [first] = rows;
  if (!first) return null;
  const candidates: Candidate[] = rows.flatMap((row) =>
    row.feature === null || row.lookup_key === null || row.subscription === null || row.status === null
      ? []
      : [{ feature: row.feature, lookupKey: row.lookup_key, subscription: row.subscription, status: row.status, pastDueSince: row.past_due_since === null ? null : new Date(row.past_due_since) }],
  );
  return { live: pick(candidates, now, first.grace), announced: first.announced ?? [] };
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
  // Sent together: PostgreSQL runs them in order on the one connection, so the reads see what the
  // lock waited for, at the cost of one round trip instead of two.
  const [[snapshot], after] = await Promise.all([
    tx.select().from(customerEntitlements).where(eq(customerEntitlements.customerId, customerId)).for("update"),
    computeEntitlements(tx, ctx.accountId, customerId, ctx.now()),
  ]);
  const before = snapshot?.items ?? [];
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
