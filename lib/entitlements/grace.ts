import { and, asc, eq, min, sql, type SQL } from "drizzle-orm";
import { accounts, customerEntitlements, subscriptions } from "@/db/schema";
import { accountNow, accountsWhere, DUE_BATCH, runEach } from "@/lib/clock/due";
import type { TimeTransition } from "@/lib/clock/transitions";
import { withChangeTransaction } from "@/lib/events/transaction";
import { syncEntitlements } from "./core";

/*
 * The clock-driven end of a past_due subscription's grace: nothing in the subscription changes, so
 * no subscription change runs the sync. The clock's tick finds the subscriptions whose grace is
 * over (past_due_since + the account's grace ≤ the account's now) while the customer's announced
 * entitlements still name them as a source, and syncs those customers: the
 * `customer.entitlements.updated` is emitted by the tick, actor `system`.
 */

const stillAnnounced = sql`exists (select 1 from ${customerEntitlements} where ${customerEntitlements.customerId} = ${subscriptions.customerId}
  and ${customerEntitlements.items} @> jsonb_build_array(jsonb_build_object('source_subscription', ${subscriptions.id})))`;

/**
 * The account's `entitlement_past_due_grace_days` inside the statement that uses it, so that the
 * clock's reads of every kind go in one round trip (`pastDueGraceDays` reads the same column).
 */
const graceDaysOf = (accountId: string): SQL => sql`(select ${accounts.entitlementPastDueGraceDays} from ${accounts} where ${accounts.id} = ${accountId})`;

const graceEnd = (days: SQL | number): SQL => sql`(${subscriptions.pastDueSince} + ${days} * interval '1 day')`;

const pending = (days: SQL | number) => and(eq(subscriptions.status, "past_due"), sql`${graceEnd(days)} is not null`, stillAnnounced);

export const entitlementGraceExpiry: TimeTransition = {
  name: "entitlement_grace_expiry",
  async nextDue(executor, accountId) {
    const days = graceDaysOf(accountId);
    const [row] = await executor
      .select({ at: min(graceEnd(days)).mapWith(subscriptions.pastDueSince) })
      .from(subscriptions)
      .where(and(eq(subscriptions.accountId, accountId), pending(days)));
    return (row?.at as Date | null | undefined) ?? null;
  },
  async findDue(executor, ctx) {
    const days = graceDaysOf(ctx.accountId);
    const due = await executor
      .selectDistinct({ customer: subscriptions.customerId })
      .from(subscriptions)
      .where(and(eq(subscriptions.accountId, ctx.accountId), pending(days), sql`${graceEnd(days)} <= ${ctx.now().toISOString()}::timestamptz`))
      .orderBy(asc(subscriptions.customerId))
      .limit(DUE_BATCH);
    // Each customer its own lane: different customers' syncs run side by side (lib/clock/due.ts).
    return () =>
      runEach(
        due.map((row) => ({ id: row.customer, lane: row.customer })),
        (customer) => withChangeTransaction((tx) => syncEntitlements(tx, ctx, customer)),
      );
  },
  async dueAccounts(executor, realNow) {
    const days = sql`${accounts.entitlementPastDueGraceDays}`;
    return accountsWhere(
      executor,
      executor
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .where(and(eq(subscriptions.accountId, accounts.id), pending(days), sql`${graceEnd(days)} <= ${accountNow(realNow)}`)),
    );
  },
};
