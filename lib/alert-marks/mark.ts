import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";

/*
 * The cheap half of alert evaluation (docs/usage-billing.md, "Alerts"): a change that can move a
 * customer's alerts (usage ingested, the balance changed) upserts one `alert_marks` row for the
 * customer, and only when the account has an active alert. No aggregate is read here; the
 * evaluator (lib/alerts/evaluate.ts, a time-driven transition) reads the marks and evaluates.
 * Kept apart from lib/alerts so that the domains that mark (usage, customer balance) do not
 * import the one that evaluates them (it reads their amounts: an import cycle otherwise).
 */

/** The account has an active alert (SQL condition). */
const anyActiveAlert = (accountId: string): SQL => sql`exists (select 1 from alerts where account_id = ${accountId} and status = 'active')`;

/**
 * A CTE body for a statement that already has the changed customers as a select (`customers`
 * yields a `customer_id` column): marks them, in key order (no deadlock between batches). A mark
 * already there gets its `seq` bumped, so an evaluator that read it before this change keeps it.
 */
export function markCustomersSql(accountId: string, at: Date, customers: SQL): SQL {
  return sql`insert into alert_marks (account_id, customer_id, marked_at)
    select distinct ${accountId}, c.customer_id, ${at.toISOString()}::timestamptz from (${customers}) as c
    where ${anyActiveAlert(accountId)}
    order by 2
    on conflict (account_id, customer_id) do update set seq = alert_marks.seq + 1`;
}

/** Marks one customer (inside the change's own transaction). */
export async function markCustomerForAlerts(executor: Executor, accountId: string, customerId: string, at: Date): Promise<void> {
  await executor.execute(markCustomersSql(accountId, at, sql`select ${customerId}::text as customer_id`));
}
