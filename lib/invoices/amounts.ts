import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { coupons, customerDiscounts } from "@/db/schema";
import { applyDiscounts, type Discount } from "@/lib/money";
import { draftTotals } from "./lines";
import type { InvoiceLineRow, InvoiceRow } from "./serialize";

type CouponDuration = (typeof coupons.$inferSelect)["duration"];
import { invoiceTaxes } from "./taxes";

/* An invoice's amounts as finalization fixes them: one sequence for finalizeInvoice and the previews (preview.ts). */

/**
 * The customer's discount in force now (active, not ended) as money terms, or null. A coupon
 * deleted after it was applied still honours the discount (as in Stripe); an amount-off coupon
 * in another currency cannot apply to this invoice. A `once` coupon's discount is in force until
 * the first invoice it discounts is finalized, which ends it (`endOnceDiscount`).
 */
export async function discountFor(
  tx: Executor,
  invoice: Pick<InvoiceRow, "customerId" | "currency">,
  now: Date,
): Promise<{ id: string; terms: Discount; duration: CouponDuration } | null> {
  const [row] = await tx
    .select({
      id: customerDiscounts.id,
      percentOffBps: coupons.percentOffBps,
      amountOffAtom: coupons.amountOffAtom,
      currency: coupons.currency,
      duration: coupons.duration,
    })
    .from(customerDiscounts)
    .innerJoin(coupons, eq(coupons.id, customerDiscounts.couponId))
    .where(
      and(
        eq(customerDiscounts.customerId, invoice.customerId),
        eq(customerDiscounts.active, true),
        isNull(customerDiscounts.deletedAt),
        or(isNull(customerDiscounts.end), gt(customerDiscounts.end, now)),
      ),
    );
  if (!row) return null;
  if (row.percentOffBps !== null) return { id: row.id, duration: row.duration, terms: { percentOffBps: row.percentOffBps } };
  if (row.amountOffAtom !== null && row.currency === invoice.currency) {
    return { id: row.id, duration: row.duration, terms: { amountOffAtom: row.amountOffAtom } };
  }
  return null;
}

/** The discount in force at `at`, the taxes after its share, the total: finalization's order. */
export async function finalizationAmounts(
  executor: Executor,
  invoice: Pick<InvoiceRow, "accountId" | "customerId" | "currency">,
  lines: readonly Pick<InvoiceLineRow, "amountAtom" | "taxRateIds">[],
  at: Date,
) {
  const discount = await discountFor(executor, invoice, at);
  const { subtotalAtom } = draftTotals(lines);
  const { discountAtom, totalAtom: discountedAtom } = applyDiscounts(subtotalAtom, discount ? [discount.terms] : []);
  const taxes = await invoiceTaxes(executor, invoice, lines, discountAtom);
  return { discount, subtotalAtom, discountAtom, taxes, totalAtom: discountedAtom + taxes.exclusiveTaxAtom };
}

/** The invoice's columns those amounts and the balance applied to them set. */
export function amountColumns(amounts: Awaited<ReturnType<typeof finalizationAmounts>>, balance: { startingAtom: number; endingAtom: number; dueAtom: number }) {
  const { subtotalAtom, discountAtom, taxes, totalAtom } = amounts;
  return {
    subtotalAtom,
    discountAtom,
    taxAtom: taxes.taxAtom,
    totalTaxes: taxes.totalTaxes,
    reverseCharge: taxes.reverseCharge,
    totalAmountAtom: totalAtom,
    dueAmountAtom: balance.dueAtom,
    startingBalanceAtom: balance.startingAtom,
    endingBalanceAtom: balance.endingAtom,
  };
}
