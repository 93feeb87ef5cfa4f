import { and, eq, gt, inArray, isNull, or } from "drizzle-orm";
import { amountOffIn } from "@/lib/coupons/amount-off";
import type { Executor } from "@/db/client";
import { coupons, customerDiscounts, prices } from "@/db/schema";
import { creditsFor, type CreditableLine } from "@/lib/credit-grants/service";
import { validationFailed } from "@/lib/errors";
import { applyDiscounts, type Discount } from "@/lib/money";
import type { InvoiceTaxes } from "@/lib/tax-rates/compute";
import { draftTotals } from "./lines";
import type { InvoiceLineRow, InvoiceRow } from "./serialize";

type CouponDuration = (typeof coupons.$inferSelect)["duration"];
import { invoiceTaxes, taxTermsOf } from "./taxes";

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
      currencyOptions: coupons.currencyOptions,
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
  // Its own currency's amount, or its currency option's for the invoice's currency (none: it does not apply).
  const off = amountOffIn(row, invoice.currency);
  return off === null ? null : { id: row.id, duration: row.duration, terms: { amountOffAtom: off } };
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

/**
 * The lines as credit grants see them (docs/rules/invoices.md, "Credit grants at finalization"):
 * a credit pays a line's amount after its discount share, never its exclusive taxes; a metered
 * line (its price has a meter) names its meter for the grants scoped to meters.
 */
export function creditableLines(
  lines: readonly Pick<InvoiceLineRow, "id" | "priceId" | "amountAtom">[],
  taxes: Pick<InvoiceTaxes, "lines">,
  meterOf: ReadonlyMap<string, string | null>,
): CreditableLine[] {
  return lines.map((line, index) => ({
    id: line.id,
    payableAtom: line.amountAtom - taxes.lines[index]!.discountAtom,
    meterId: line.priceId ? (meterOf.get(line.priceId) ?? null) : null,
  }));
}

/** The meter of each of the lines' prices that has one (a metered line's, for the credit grants scoped to meters). */
async function metersOfPrices(executor: Executor, lines: readonly Pick<InvoiceLineRow, "priceId">[]): Promise<Map<string, string | null>> {
  const priceIds = [...new Set(lines.flatMap((line) => (line.priceId ? [line.priceId] : [])))];
  const metered = priceIds.length === 0 ? [] : await executor.select({ id: prices.id, meterId: prices.meterId }).from(prices).where(inArray(prices.id, priceIds));
  return new Map(metered.map((row) => [row.id, row.meterId]));
}

/**
 * The discount in force at `at`, the taxes after its share, the credit grants' share, the total:
 * finalization's order. `lockGrants`: finalization locks the grants it applies (a preview reads).
 * The discount, the tax terms and the prices' meters are read together (one round trip).
 */
export async function finalizationAmounts(
  executor: Executor,
  invoice: Pick<InvoiceRow, "accountId" | "customerId" | "currency">,
  lines: readonly Pick<InvoiceLineRow, "id" | "priceId" | "amountAtom" | "taxRateIds">[],
  at: Date,
  lockGrants = false,
) {
  const [discount, taxTerms, meterOf] = await Promise.all([discountFor(executor, invoice, at), taxTermsOf(executor, invoice, lines), metersOfPrices(executor, lines)]);
  const { subtotalAtom } = draftTotals(lines);
  const { discountAtom, totalAtom: discountedAtom } = applyDiscounts(subtotalAtom, discount ? [discount.terms] : []);
  const taxes = invoiceTaxes(taxTerms, lines, discountAtom);
  const creditable = creditableLines(lines, taxes, meterOf);
  const credits = await creditsFor(executor, invoice, creditable, at, lockGrants);
  return { discount, subtotalAtom, discountAtom, taxes, creditable, credits, totalAtom: totalAfterCredits(totalAfterTax(discountedAtom, taxes), credits.creditsAtom) };
}

/** The total after the credit grants paid their share: total after tax − credits applied (never below 0: credits pay at most the lines' amounts after discount). */
export function totalAfterCredits(totalAfterTaxAtom: number, creditsAtom: number): number {
  if (creditsAtom > totalAfterTaxAtom) throw new RangeError(`Credits applied (${creditsAtom}) exceed the total (${totalAfterTaxAtom}).`);
  return totalAfterTaxAtom - creditsAtom;
}

/** The invoice's columns those amounts and the balance applied to them set. */
export function amountColumns(amounts: Awaited<ReturnType<typeof finalizationAmounts>>, balance: { startingAtom: number; endingAtom: number; dueAtom: number }) {
  const { subtotalAtom, discountAtom, taxes, totalAtom, credits, creditable } = amounts;
  return {
    creditsAppliedAtom: credits.creditsAtom,
    creditsApplied: credits.applications.map((application) => ({ credit_grant: application.grantId, line: creditable[application.lineIndex]!.id, amount_atom: application.amountAtom })),
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
