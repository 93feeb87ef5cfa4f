import type { InvoiceStatus } from "@/components/api-types";
import { INVOICE_STATUSES } from "@/lib/invoices/statuses";
import { formatAtoms } from "@/lib/money";

/** The statuses the list can filter by: the API's own list. */
export const INVOICE_STATUS_OPTIONS: readonly InvoiceStatus[] = INVOICE_STATUSES;

export function invoicesHref(accountId: string): string {
  return `/accounts/${accountId}/invoices`;
}

export function invoiceHref(accountId: string, invoiceId: string): string {
  return `/accounts/${accountId}/invoices/${encodeURIComponent(invoiceId)}`;
}

/**
 * An integer amount of atoms (cents for usd) as money, for display only, in the browser's locale:
 * the currency's ISO 4217 exponent (lib/currencies.ts) decides the decimals, exactly as the API
 * and the PDFs count them (JPY atoms are yen, HUF atoms are fillér). A code the table does not
 * list shows the raw atoms and the code.
 */
export function formatMoney(atoms: number, currency: string): string {
  return formatAtoms(atoms, currency, undefined);
}

/** react-query keys shared by the invoice pages. */
export const invoiceQueryKeys = {
  invoices: (accountId: string) => ["invoices", accountId] as const,
  invoice: (accountId: string, invoiceId: string) => ["invoices", accountId, "one", invoiceId] as const,
};
