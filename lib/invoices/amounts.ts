import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { coupons, customerDiscounts } from "@/db/schema";
import { validationFailed } from "@/lib/errors";
import { applyDiscounts, type Discount } from "@/lib/money";
import type { InvoiceTaxes } from "@/lib/tax-rates/compute";
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

/**
 * The discounted subtotal plus the exclusive taxes, bounded as the subtotal is (draftTotals): an
 * amount above 2^53 − 1 atoms is no longer an exact number, so the invoice is refused (422) rather
 * than finalized with a total that drifts. Summed in BigInt: the per-line taxes may be exact while
 * their sum as a number is not.
 */
export function totalAfterTax(discountedAtom: number, taxes: Pick<InvoiceTaxes, "lines">): number {
  const exclusive = taxes.lines.flatMap((line) => line.taxes).filter((tax) => !tax.inclusive);
  const total = exclusive.reduce((sum, tax) => sum + BigInt(tax.amount_atom), BigInt(discountedAtom));
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw validationFailed([{ field: "lines", message: `The invoice total after exclusive tax (${total}) exceeds 2^53 - 1 atoms.` }]);
  }
  return Number(total);
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
  return { discount, subtotalAtom, discountAtom, taxes, totalAtom: totalAfterTax(discountedAtom, taxes) };
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
