import type { InvoiceStatus } from "@/components/api-types";
import { INVOICE_STATUSES } from "@/lib/invoices/statuses";

/** The statuses the list can filter by: the API's own list. */
export const INVOICE_STATUS_OPTIONS: readonly InvoiceStatus[] = INVOICE_STATUSES;

export function invoicesHref(accountId: string): string {
  return `/accounts/${accountId}/invoices`;
}

export function invoiceHref(accountId: string, invoiceId: string): string {
  return `/accounts/${accountId}/invoices/${encodeURIComponent(invoiceId)}`;
}

/**
 * An integer amount of atoms (cents for usd) as money, for display only. The currency's own
 * number of minor digits decides the divisor, so zero-decimal currencies (jpy, krw…) show atoms
 * as whole units. An unknown currency code falls back to the raw atoms and the code.
 */
export function formatMoney(atoms: number, currency: string): string {
  let formatter: Intl.NumberFormat;
  try {
    formatter = new Intl.NumberFormat(undefined, { style: "currency", currency: currency.toUpperCase() });
  } catch {
    return `${atoms} ${currency.toUpperCase()} (atoms)`;
  }
  const digits = formatter.resolvedOptions().maximumFractionDigits ?? 2;
  return formatter.format(atoms / 10 ** digits);
}

/** react-query keys shared by the invoice pages. */
export const invoiceQueryKeys = {
  invoices: (accountId: string) => ["invoices", accountId] as const,
  invoice: (accountId: string, invoiceId: string) => ["invoices", accountId, "one", invoiceId] as const,
};
