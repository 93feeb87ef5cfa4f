import type { accounts } from "@/db/schema";
import { postalAddress } from "./address";
import { effectiveInvoicePrefix } from "./prefix";
import type { AccountSettingsObject, Locale } from "./schema";

export type AccountRow = typeof accounts.$inferSelect;

export function serializeAccountSettings(row: AccountRow): AccountSettingsObject {
  return {
    object: "account_settings",
    id: row.id,
    business_name: row.businessName,
    address: postalAddress(row.address),
    tax_id: row.taxId,
    support_email: row.supportEmail,
    brand_color: row.brandColor,
    invoice_prefix: effectiveInvoicePrefix(row),
    invoice_footer: row.invoiceFooter,
    default_locale: row.defaultLocale as Locale,
    default_tax_rate: row.defaultTaxRate,
    usage_grace_seconds: row.usageGraceSeconds,
    entitlement_past_due_grace_days: row.entitlementPastDueGraceDays,
    plan_change_policy: row.planChangePolicy,
    email_sender_name: row.emailSenderName,
    email_reply_to: row.emailReplyTo,
    email_hourly_limit: row.emailHourlyLimit,
    email_types_disabled: row.emailTypesDisabled,
    livemode: row.livemode,
  };
}
