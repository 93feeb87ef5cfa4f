import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ActionForm, Flash, PortalShell, PrimaryButton } from "@/components/portal/shell";
import { portalCustomer } from "@/lib/portal/view";
import { portalPage } from "../_lib/portal";

export const metadata: Metadata = { title: "Billing details", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

const input = "mt-1 block w-full rounded border border-slate-300 px-2 py-1";

function Field({ label, name, value, type = "text", required = false }: { label: string; name: string; value: string; type?: string; required?: boolean }) {
  return (
    <label className="block text-sm">
      <span className="font-medium">{label}</span>
      <input type={type} name={name} defaultValue={value} required={required} className={input} data-testid={`field-${name}`} />
    </label>
  );
}

/** Name, email, address and EU VAT numbers, checked by the API's own customer schema. */
export default async function DetailsPage({ searchParams }: { searchParams: Promise<{ notice?: string; error?: string }> }) {
  const { session, settings, returnUrl } = await portalPage();
  if (!settings.features.customer_update.enabled) notFound();
  const { notice, error } = await searchParams;
  const customer = await portalCustomer(session);
  const address = customer.address;
  // The customer's tax ids, and one more empty field (at most 5, as the API).
  const taxIds = [...customer.taxIds.map((taxId) => taxId.value), ""].slice(0, 5);
  return (
    <PortalShell settings={settings} returnUrl={returnUrl}>
      <h1 className="mb-4 text-xl font-semibold">Billing details</h1>
      <Flash notice={notice} error={error} />
      <ActionForm action="details" back="/portal/details" className="max-w-md space-y-3">
        <Field label="Name" name="name" value={customer.name ?? ""} />
        <Field label="Email" name="email" value={customer.email} type="email" required />
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">Address</legend>
          <Field label="Street" name="address.line1" value={address?.line1 ?? ""} />
          <Field label="Line 2" name="address.line2" value={address?.line2 ?? ""} />
          <div className="grid grid-cols-2 gap-2">
            <Field label="Postal code" name="address.postal_code" value={address?.postal_code ?? ""} />
            <Field label="City" name="address.city" value={address?.city ?? ""} />
          </div>
          <Field label="Country (2 letters)" name="address.country" value={address?.country ?? ""} />
        </fieldset>
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">EU VAT numbers</legend>
          {taxIds.map((value, index) => (
            <Field key={index} label={`VAT number ${index + 1}`} name={`tax_id.${index}`} value={value} />
          ))}
        </fieldset>
        <PrimaryButton testId="save-details">Save</PrimaryButton>
      </ActionForm>
    </PortalShell>
  );
}
