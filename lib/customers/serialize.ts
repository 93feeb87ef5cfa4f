import type { customers } from "@/db/schema";
import { postalAddress } from "@/lib/account-settings/address";
import type { Locale } from "@/lib/account-settings/schema";
import { euVatCountry, type CustomerObject } from "./schema";

export type CustomerRow = typeof customers.$inferSelect;

/** The customer as the API shows it; `custom_fields` only when expanded (always in event data). */
export function serializeCustomer(
  row: CustomerRow,
  livemode: boolean,
  options: { customFields: boolean },
): CustomerObject {
  return {
    id: row.id,
    object: "customer",
    email: row.email,
    name: row.name,
    address: postalAddress(row.address),
    preferred_locale: row.preferredLocale as Locale | null,
    tax_ids: row.taxIds.map((taxId) => ({ ...taxId, country: euVatCountry(taxId.value) ?? taxId.value.slice(0, 2) })),
    invoice_emails: row.invoiceEmails,
    default_tax_rate: row.defaultTaxRate,
    default_payment_method: row.defaultPaymentMethod,
    metadata: row.metadata,
    currency: row.currency,
    balances: row.balances,
    ...(options.customFields ? { custom_fields: row.customFields } : {}),
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}

/** The full entity state recorded in events. */
export function customerState(row: CustomerRow, livemode: boolean): Record<string, unknown> {
  return serializeCustomer(row, livemode, { customFields: true });
}
