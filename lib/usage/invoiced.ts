import { and, eq, ne, sql } from "drizzle-orm";
import { subscriptions } from "@/db/schema";
import type { Transaction } from "@/db/client";
import { ServiceError } from "@/lib/errors";
import { usageGraceSeconds } from "./settings";

/**
 * Refuses (409 `usage_event_locked`) a change to an event whose period is closed: it lies before
 * the customer's open period and that period began more than the grace window ago, so the
 * previous period's invoice is final (docs/usage-billing.md, "Usage on invoices").
 */
export async function lockedUsagePeriod(
  tx: Transaction,
  accountId: string,
  customerId: string,
  ts: Date,
  identifier: string,
  now: Date,
): Promise<void> {
  const [open] = await tx
    .select({ start: sql<string>`min(${subscriptions.currentPeriodStart})`.mapWith(String) })
    .from(subscriptions)
    .where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.customerId, customerId), ne(subscriptions.status, "cancelled")));
  if (!open?.start || open.start === "null") return;
  const start = new Date(open.start);
  const grace = (await usageGraceSeconds(accountId, tx)) * 1000;
  if (ts.getTime() < start.getTime() && now.getTime() >= start.getTime() + grace) {
    throw new ServiceError("conflict", `Usage event '${identifier}' belongs to a period whose invoice is finalized.`, {
      error_code: "usage_event_locked",
    });
  }
}
