import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { prices, products, subscriptionItems } from "@/db/schema";
import { priceName } from "@/lib/prices/name";
import { lineRange } from "@/lib/time";

/*
 * The descriptions a subscription's invoices and credits are made with (docs/rules/invoices.md,
 * "Line descriptions"): sentences naming the subscription by its prices and the range in words,
 * never an id (the invoice's `subscription`, a balance transaction's `subscription_change_request`
 * link them). Stored when made: what was issued before keeps its words.
 */

/** "A", "A and B", "A, B and C". */
function inWords(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * "Subscription to Pro plan (Monthly) and API calls": a subscription named by its items' prices
 * (product name, price nickname), in the items' order, archived or deleted prices included.
 */
export async function subscriptionName(executor: Executor, priceIds: readonly string[]): Promise<string> {
  const rows = priceIds.length === 0
    ? []
    : await executor
        .select({ id: prices.id, nickname: prices.nickname, productName: products.name })
        .from(prices)
        .innerJoin(products, eq(products.id, prices.productId))
        .where(inArray(prices.id, [...priceIds]));
  const names = priceIds.map((id) => rows.find((row) => row.id === id)).flatMap((row) => (row ? [priceName(row.productName, row.nickname)] : []));
  return names.length === 0 ? "Subscription" : `Subscription to ${inWords([...new Set(names)])}`;
}

/** subscriptionName of the subscription's current items. */
export async function subscriptionNameOf(executor: Executor, subscriptionId: string): Promise<string> {
  const items = await executor
    .select({ priceId: subscriptionItems.priceId })
    .from(subscriptionItems)
    .where(and(eq(subscriptionItems.subscriptionId, subscriptionId), isNull(subscriptionItems.deletedAt)))
    .orderBy(asc(subscriptionItems.created), asc(subscriptionItems.id));
  return subscriptionName(executor, items.map((item) => item.priceId));
}

/** A subscription's invoice for a period: "Subscription to Pro plan, 1 Jan 2027 – 1 Feb 2027". */
export function subscriptionInvoiceDescription(name: string, start: Date, end: Date): string {
  return `${name}, ${lineRange(start, end)}`;
}

/** A cancelled subscription's last invoice: "Subscription to Pro plan: final usage, 1 Jan 2027 – 15 Jan 2027". */
export function finalUsageDescription(name: string, start: Date, end: Date): string {
  return `${name}: final usage, ${lineRange(start, end)}`;
}

/** The invoice collecting a change's proration: "Subscription to Pro plan: proration of a change, 15 Jan 2027 12:00:00 UTC – 1 Feb 2027". */
export function prorationInvoiceDescription(name: string, from: Date, periodEnd: Date): string {
  return `${name}: proration of a change, ${lineRange(from, periodEnd)}`;
}

/** The balance credit of a change's unused time: "Subscription to Pro plan: unused time credited, 15 Jan 2027 12:00:00 UTC – 1 Feb 2027". */
export function prorationCreditDescription(name: string, from: Date, periodEnd: Date): string {
  return `${name}: unused time credited, ${lineRange(from, periodEnd)}`;
}
