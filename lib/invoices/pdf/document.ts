import { eq, inArray } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { accounts, customers, prices, products, subscriptions, taxRates } from "@/db/schema";
import { postalAddress } from "@/lib/account-settings/address";
import type { Locale } from "@/lib/account-settings/schema";
import type { InvoiceDocument } from "../schema";
import { termsIn, tierPartsOf } from "@/lib/prices/amount";
import { one } from "@/lib/rows";
import type { InvoiceLineRow, InvoiceRow } from "../serialize";

/**
 * A later change of the settings, the customer or the catalogue does not change an issued
 * invoice: its document is built once, at finalization, and renders the same bytes every time
 * (docs/invoices-and-tax.md).
 */

export async function buildDocument(executor: Executor, invoice: InvoiceRow, lines: readonly InvoiceLineRow[]): Promise<InvoiceDocument> {
  const priceIds = lines.flatMap((line) => (line.priceId ? [line.priceId] : []));
  const rateIds = [...new Set(lines.flatMap((line) => line.taxRateIds))];
  const [account, customer, priceRows, rateRows, subscription] = await Promise.all([
    executor.select().from(accounts).where(eq(accounts.id, invoice.accountId)).then((rows) => one(rows, "account")),
    executor.select().from(customers).where(eq(customers.id, invoice.customerId)).then((rows) => one(rows, "customer")),
    priceIds.length === 0
      ? Promise.resolve([])
      : executor
          .select({
            id: prices.id,
            nickname: prices.nickname,
            productName: products.name,
            billingScheme: prices.billingScheme,
            unitAmountAtom: prices.unitAmountAtom,
            tiersMode: prices.tiersMode,
            tiers: prices.tiers,
            currency: prices.currency,
            currencyOptions: prices.currencyOptions,
          })
          .from(prices)
          .innerJoin(products, eq(products.id, prices.productId))
          .where(inArray(prices.id, priceIds)),
    rateIds.length === 0 ? Promise.resolve([]) : executor.select().from(taxRates).where(inArray(taxRates.id, rateIds)),
    invoice.subscriptionId === null
      ? Promise.resolve(undefined)
      : executor
          .select({ start: subscriptions.currentPeriodStart, end: subscriptions.currentPeriodEnd })
          .from(subscriptions)
          .where(eq(subscriptions.id, invoice.subscriptionId))
          .then((rows) => rows[0]),
  ]);
  // Each line's period: a metered line's usage range, else (billed in advance) the subscription's period.
  const invoicePeriod = subscription ? { start: subscription.start.toISOString(), end: subscription.end.toISOString() } : null;
  const linePeriods = lines.map((line) =>
    line.periodStart && line.periodEnd ? { start: line.periodStart.toISOString(), end: line.periodEnd.toISOString() } : invoicePeriod,
  );
  const [first] = linePeriods;
  const onePeriod = linePeriods.every((period) => period?.start === first?.start && period?.end === first?.end);
  return {
    locale: (customer.preferredLocale ?? account.defaultLocale) as Locale,
    seller: {
      name: account.businessName ?? account.name,
      address: postalAddress(account.address),
      tax_id: account.taxId,
      email: account.supportEmail,
    },
    buyer: { name: customer.name, email: customer.email, address: postalAddress(customer.address), tax_ids: customer.taxIds.map((taxId) => taxId.value) },
    lines: lines.map((line, index) => {
      const price = priceRows.find((row) => row.id === line.priceId);
      const period = onePeriod ? null : linePeriods[index];
      const own = period ? { period } : {};
      if (!price) return { title: line.description ?? "", detail: null, ...own };
      // The tiers in the invoice's currency (the price's own or its currency option's) that priced the line.
      const terms = termsIn(price, invoice.currency);
      const parts = terms ? tierPartsOf(terms, line.quantity) : null;
      // The line's amount is these parts' sum, a safe integer: so is each part.
      const tiers = parts?.map((part) => ({
        from: part.from,
        to: part.to,
        units: part.units,
        unit_amount_atom: part.unitAmountAtom,
        flat_amount_atom: part.flatAmountAtom,
        amount_atom: Number(part.amountAtom),
      }));
      return { title: line.description ?? price.productName, detail: price.nickname, ...own, ...(tiers ? { tiers } : {}) };
    }),
    tax_rates: rateIds.map((id) => {
      const rate = rateRows.find((row) => row.id === id)!;
      return { id, display_name: rate.displayName, percentage_e4: rate.percentageE4, inclusive: rate.inclusive };
    }),
    footer: account.invoiceFooter,
    period: onePeriod ? (first ?? invoicePeriod) : null,
  };
}
