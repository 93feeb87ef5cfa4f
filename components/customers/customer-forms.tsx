"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ApiForm, type FormField } from "@/components/objects/api-form";
import { Button, Card, CreatePanel } from "@/components/ui";
import { customerHref, customerQueryKeys } from "./format";
import type { Customer } from "@/components/api-types";

/** The billing details invoices print: address, VAT id and invoice language; the currency they are billed in; the extra invoice recipients (all optional). */
function billingFields(customer?: Customer): FormField[] {
  const address = customer?.address;
  return [
    { name: "line1", label: "Address line 1", initial: address?.line1 ?? "", errorFields: ["address", "address.line1"] },
    { name: "line2", label: "Address line 2", initial: address?.line2 ?? "", errorFields: ["address.line2"] },
    { name: "postal_code", label: "Postal code", initial: address?.postal_code ?? "", errorFields: ["address.postal_code"] },
    { name: "city", label: "City", initial: address?.city ?? "", errorFields: ["address.city"] },
    { name: "country", label: "Country", initial: address?.country ?? "", hint: "Two letters, e.g. DE", errorFields: ["address.country"] },
    { name: "vat_id", label: "EU VAT id", initial: customer?.tax_ids[0]?.value ?? "", hint: "e.g. DE136695976", errorFields: ["tax_ids", "tax_ids.0", "tax_ids.0.value"] },
    {
      name: "preferred_locale",
      label: "Invoice language",
      kind: "select",
      initial: customer?.preferred_locale ?? "",
      options: [
        { value: "", label: "The account's default" },
        { value: "en", label: "English" },
        { value: "de", label: "Deutsch" },
        { value: "fr", label: "Français" },
      ],
    },
    {
      name: "currency",
      label: "Currency",
      initial: customer?.currency ?? "",
      hint: "Three letters, e.g. eur: what their subscriptions bill in. Empty: their first invoice or subscription sets it",
      errorFields: ["currency"],
    },
    {
      name: "invoice_emails",
      label: "Also send invoices to",
      initial: customer?.invoice_emails.join(", ") ?? "",
      hint: "Up to 5 addresses, separated by commas",
      errorFields: ["invoice_emails", ...[0, 1, 2, 3, 4].map((index) => `invoice_emails.${index}`)],
    },
  ];
}

/** The billing details as the API takes them; `customer` (editing): emptied fields clear what it had. */
function billingBody(values: Record<string, string>, customer?: Customer): Record<string, unknown> {
  const text = (name: string) => (values[name] ?? "").trim();
  const anyAddress = ["line1", "line2", "postal_code", "city", "country"].some((name) => text(name) !== "");
  const address = anyAddress
    ? { line1: text("line1"), ...(text("line2") ? { line2: text("line2") } : {}), postal_code: text("postal_code"), city: text("city"), country: text("country") }
    : customer?.address
      ? null
      : undefined;
  const vat = text("vat_id");
  const taxIds = vat ? [{ type: "eu_vat", value: vat }] : customer && customer.tax_ids.length > 0 ? [] : undefined;
  const locale = text("preferred_locale");
  // Sent only when it changes: a customer's currency is held while anything is billed in it (409).
  const currency = text("currency").toLowerCase();
  // Commas, semicolons or spaces separate addresses; a line break stays in one for the API to refuse.
  const invoiceEmails = text("invoice_emails")
    .split(/[,; ]+/)
    .filter((email) => email !== "");
  const emailsChanged = JSON.stringify(invoiceEmails) !== JSON.stringify(customer?.invoice_emails ?? []);
  return {
    ...(address !== undefined ? { address } : {}),
    ...(taxIds !== undefined ? { tax_ids: taxIds } : {}),
    ...(locale ? { preferred_locale: locale } : customer?.preferred_locale ? { preferred_locale: null } : {}),
    ...(emailsChanged ? { invoice_emails: invoiceEmails } : {}),
    ...(currency && currency !== customer?.currency ? { currency } : {}),
  };
}

/** "New customer" above the list: email and name, then to the new customer's page. */
export function CreateCustomer({ accountId }: { accountId: string }) {
  const router = useRouter();
  return (
    <CreatePanel title="New customer">
      <ApiForm
        label="New customer"
        submitLabel="Create customer"
        operation="createCustomer"
        params={{ path: { account_id: accountId } }}
        invalidate={[customerQueryKeys.customers(accountId)]}
        onDone={(customer) => router.push(customerHref(accountId, customer.id))}
        fields={[
          { name: "email", label: "Email", kind: "email", required: true },
          { name: "name", label: "Name (optional)" },
          ...billingFields(),
        ]}
        toBody={(values) => ({ email: values.email, ...(values.name ? { name: values.name } : {}), ...billingBody(values) })}
      />
    </CreatePanel>
  );
}

/** Edit the customer's email and name in place. */
export function EditCustomer({ accountId, customer }: { accountId: string; customer: Customer }) {
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <Button variant="secondary" onClick={() => setOpen(true)}>
        Edit customer
      </Button>
    );
  }
  return (
    <Card title="Edit customer" actions={<Button variant="secondary" onClick={() => setOpen(false)}>Close</Button>}>
      <ApiForm
        label="Edit customer"
        submitLabel="Save"
        operation="updateCustomer"
        params={{ path: { account_id: accountId, customer_id: customer.id } }}
        invalidate={[customerQueryKeys.customers(accountId)]}
        confirmation={() => "Saved."}
        fields={[
          { name: "email", label: "Email", kind: "email", required: true, initial: customer.email },
          { name: "name", label: "Name", initial: customer.name ?? "" },
          ...billingFields(customer),
        ]}
        // An emptied name clears it (null); an untouched empty one is not sent.
        toBody={(values) => ({
          email: values.email,
          ...(values.name ? { name: values.name } : customer.name ? { name: null } : {}),
          ...billingBody(values, customer),
        })}
      />
    </Card>
  );
}
