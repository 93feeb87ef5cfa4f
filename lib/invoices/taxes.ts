import { eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { accounts, customers } from "@/db/schema";
import { EU_COUNTRIES, euVatCountry } from "@/lib/customers/schema";
import { one } from "@/lib/rows";
import { computeTaxes, type InvoiceTaxes } from "@/lib/tax-rates/compute";
import { taxRatesOf } from "@/lib/tax-rates/service";

/* The taxes of an invoice at finalization (and of the preview `invoice.upcoming` carries): one rule for invoices made by the API, checkout and renewals. */

export type AppliedTaxes = InvoiceTaxes & {
  /** Per line, the rates that applied: its own, else the customer's default, else the account's. */
  rateIds: string[][];
  reverseCharge: boolean;
};

/** The seller's EU country: its address's, else its VAT number's; null outside the EU. */
function sellerCountry(account: { address: { country: string } | null; taxId: string | null }): string | null {
  const country = account.address?.country ?? (account.taxId ? euVatCountry(account.taxId.replace(/[\s.-]/g, "").toUpperCase()) : null);
  return country && EU_COUNTRIES.includes(country) ? country : null;
}

/**
 * EU reverse charge: the customer has a valid EU VAT number (format-checked when it was given) of
 * another EU member state than the seller's. The buyer then accounts for the VAT (Directive
 * 2006/112/EC, art. 196): every rate applies at 0 %, and the invoice says so.
 */
export function isReverseCharge(
  account: { address: { country: string } | null; taxId: string | null },
  customer: { taxIds: readonly { type: string; value: string }[] },
): boolean {
  const seller = sellerCountry(account);
  if (!seller) return false;
  return customer.taxIds.some((taxId) => {
    if (taxId.type !== "eu_vat") return false;
    const buyer = euVatCountry(taxId.value);
    return buyer !== null && buyer !== seller;
  });
}

/**
 * The account's default rate where it applies to this customer: a rate with a `country` only to a
 * customer whose address is in that country; a customer without an address is located nowhere, so
 * only a rate without a country applies (Stripe Tax's rule: no location, no tax of a place). The
 * customer's own default and a line's rates are the merchant's explicit choice and apply as named.
 */
export async function accountDefaultFor(
  executor: Executor,
  accountId: string,
  rateId: string | null,
  address: { country: string } | null,
): Promise<string | null> {
  if (rateId === null) return null;
  const [rate] = await taxRatesOf(executor, accountId, [rateId], "default_tax_rate", true);
  if (!rate || rate.country === null) return rateId;
  return address !== null && address.country.toUpperCase() === rate.country.toUpperCase() ? rateId : null;
}

/** What an invoice's taxes depend on besides its discount: the rates of each line and their terms, and whether the EU reverse charge applies. */
export type TaxTerms = {
  rateIds: string[][];
  terms: Map<string, { id: string; percentageE4: number; inclusive: boolean }>;
  reverseCharge: boolean;
};

/** Reads the tax terms of the invoice's lines (taxes at finalization: `invoiceTaxes`). */
export async function taxTermsOf(
  executor: Executor,
  invoice: { accountId: string; customerId: string },
  lines: readonly { taxRateIds: readonly string[] }[],
): Promise<TaxTerms> {
  const [account, customer] = await Promise.all([
    executor
      .select({ address: accounts.address, taxId: accounts.taxId, defaultTaxRate: accounts.defaultTaxRate })
      .from(accounts)
      .where(eq(accounts.id, invoice.accountId))
      .then((rows) => one(rows, "account")),
    executor
      .select({ taxIds: customers.taxIds, defaultTaxRate: customers.defaultTaxRate, address: customers.address })
      .from(customers)
      .where(eq(customers.id, invoice.customerId))
      .then((rows) => one(rows, "customer")),
  ]);
  const fallback = customer.defaultTaxRate ?? (await accountDefaultFor(executor, invoice.accountId, account.defaultTaxRate, customer.address));
  const rateIds = lines.map((line) => (line.taxRateIds.length > 0 ? [...line.taxRateIds] : fallback ? [fallback] : []));
  // Archived since they were named: they still apply (as in Stripe).
  const rows = await taxRatesOf(executor, invoice.accountId, [...new Set(rateIds.flat())], "tax_rates", true);
  const terms = new Map(rows.map((row) => [row.id, { id: row.id, percentageE4: row.percentageE4, inclusive: row.inclusive }]));
  return { rateIds, terms, reverseCharge: isReverseCharge(account, customer) };
}

/** The invoice's taxes: its lines' amounts under their tax terms (`taxTermsOf`), after the discount's share. */
export function invoiceTaxes(
  { rateIds, terms, reverseCharge }: TaxTerms,
  lines: readonly { amountAtom: number }[],
  discountAtom: number,
): AppliedTaxes {
  const computed = computeTaxes(
    lines.map((line, index) => ({ amountAtom: line.amountAtom, rates: rateIds[index]!.map((id) => terms.get(id)!) })),
    discountAtom,
    { reverseCharge },
  );
  return { ...computed, rateIds, reverseCharge };
}
