"use client";

import { useState } from "react";
import { ApiForm } from "@/components/objects/api-form";
import { dashboardCall } from "@/components/api-client";
import { Card, ErrorBox, Loading } from "@/components/ui";
import { useApiObject } from "@/components/ui/detail";

const settingsKey = (accountId: string) => ["account-settings", accountId] as const;

/**
 * The seller's details printed on invoices (account settings), through the same
 * `POST /api/account-settings` a merchant's server calls. Empty fields clear the setting.
 */
export function SellerDetails({ accountId }: { accountId: string }) {
  const [saved, setSaved] = useState(false);
  const query = useApiObject(settingsKey(accountId), () => dashboardCall("getAccountSettings", { path: { account_id: accountId } }));
  if (query.isPending) return <Loading what="Loading the seller's details" />;
  if (query.error || !query.data) return <ErrorBox error={query.error} />;
  const settings = query.data;
  const address = settings.address;
  const orNull = (value: string | undefined) => (value?.trim() ? value.trim() : null);
  return (
    <Card title="Seller details on invoices">
      {saved && (
        <p role="status" className="mb-3 text-sm text-green-800">
          Saved. Invoices finalized from now on print these details.
        </p>
      )}
      <ApiForm
        key={JSON.stringify(settings)}
        label="Seller details"
        submitLabel="Save seller details"
        operation="updateAccountSettings"
        params={{ path: { account_id: accountId } }}
        invalidate={[settingsKey(accountId)]}
        onDone={() => setSaved(true)}
        fields={[
          { name: "business_name", label: "Business name", initial: settings.business_name ?? "" },
          { name: "line1", label: "Address line 1", initial: address?.line1 ?? "", errorFields: ["address.line1", "address"] },
          { name: "line2", label: "Address line 2", initial: address?.line2 ?? "", errorFields: ["address.line2"] },
          { name: "postal_code", label: "Postal code", initial: address?.postal_code ?? "", errorFields: ["address.postal_code"] },
          { name: "city", label: "City", initial: address?.city ?? "", errorFields: ["address.city"] },
          { name: "country", label: "Country (2 letters)", initial: address?.country ?? "", errorFields: ["address.country"] },
          { name: "tax_id", label: "VAT number", initial: settings.tax_id ?? "" },
          { name: "support_email", label: "Support email", initial: settings.support_email ?? "" },
          { name: "brand_color", label: "Brand colour", initial: settings.brand_color ?? "", hint: "#RRGGBB, the accent of the emails sent to customers; empty: the default" },
          { name: "invoice_prefix", label: "Invoice number prefix", initial: settings.invoice_prefix, hint: `Invoices are numbered ${settings.invoice_prefix}-0001, ${settings.invoice_prefix}-0002, …; 3–12 of A–Z, 0–9 and -; unset, it follows the name above.` },
          { name: "invoice_footer", label: "Invoice footer", initial: settings.invoice_footer ?? "" },
          {
            name: "default_locale",
            label: "Invoice language",
            kind: "select",
            options: [
              { value: "en", label: "English" },
              { value: "fr", label: "Français" },
              { value: "de", label: "Deutsch" },
            ],
            initial: settings.default_locale,
          },
        ]}
        toBody={(values) => ({
          business_name: orNull(values.business_name),
          address: values.line1?.trim()
            ? { line1: values.line1.trim(), line2: orNull(values.line2), postal_code: values.postal_code ?? "", city: values.city ?? "", country: values.country ?? "" }
            : null,
          tax_id: orNull(values.tax_id),
          support_email: orNull(values.support_email),
          brand_color: orNull(values.brand_color),
          ...(values.invoice_prefix && values.invoice_prefix !== settings.invoice_prefix ? { invoice_prefix: values.invoice_prefix.trim() } : {}),
          invoice_footer: orNull(values.invoice_footer),
          default_locale: values.default_locale as "en" | "fr" | "de",
        })}
      />
    </Card>
  );
}
