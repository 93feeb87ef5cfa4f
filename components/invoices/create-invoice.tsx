"use client";

import { useRouter } from "next/navigation";
import { ApiForm, toAtoms } from "@/components/objects/api-form";
import { toInteger, useCustomerOptions, usePriceOptions } from "@/components/objects/pickers";
import { collectionBody, collectionFields } from "@/components/objects/collection-method";
import { CreatePanel, ErrorBox, Loading } from "@/components/ui";
import { invoiceHref, invoiceQueryKeys } from "./format";

/**
 * "New invoice" above the list: a draft for a customer with one first line (a price of the
 * account, or a custom amount with a description), through the same `POST /invoices` merchants'
 * servers call. More lines, finalizing and paying happen on the invoice's page and the API.
 */
export function CreateInvoice({ accountId, customer, open: openAtFirst = false }: { accountId: string; customer?: string; open?: boolean }) {
  return (
    <CreatePanel title="New invoice" open={openAtFirst}>
      <InvoiceForm accountId={accountId} customer={customer} />
    </CreatePanel>
  );
}

function InvoiceForm({ accountId, customer }: { accountId: string; customer?: string }) {
  const router = useRouter();
  const customers = useCustomerOptions(accountId, customer);
  const prices = usePriceOptions(accountId);
  if (customers.isPending || prices.isPending) return <Loading what="Loading customers and prices" />;
  if (customers.error || prices.error) return <ErrorBox error={customers.error ?? prices.error} />;
  if (customers.options.length === 0) return <p className="text-sm text-slate-600">Create a customer first.</p>;
  const line = (field: string) => [`lines.0.${field}`];
  return (
    <ApiForm
      label="New invoice"
      submitLabel="Create draft invoice"
      operation="createInvoice"
      params={{ path: { account_id: accountId } }}
      invalidate={[invoiceQueryKeys.invoices(accountId)]}
      onDone={(invoice) => router.push(invoiceHref(accountId, invoice.id))}
      // A price bills in its own currency: picking one sets the invoice's.
      adjust={(changed, values) =>
        changed === "price" && values.price ? { ...values, currency: prices.currencyOf.get(values.price) ?? values.currency ?? "usd" } : values
      }
      fields={[
        { name: "customer", label: "Customer", kind: "select", options: customers.options, initial: customer },
        { name: "currency", label: "Currency", initial: "usd", required: true },
        { name: "description", label: "Invoice memo (optional)" },
        ...collectionFields,
        {
          name: "price",
          label: "Line: price",
          kind: "select",
          options: [{ value: "", label: "Custom amount (below)" }, ...prices.options],
          errorFields: [...line("price"), "lines"],
        },
        { name: "quantity", label: "Line: quantity", kind: "number", initial: "1", errorFields: line("quantity") },
        {
          name: "amount",
          label: "Line: custom amount",
          kind: "money",
          hint: "e.g. 12.50; only without a price. Leave price and amount empty for an empty draft.",
          currency: { field: "currency" },
          errorFields: line("unit_amount_atom"),
        },
        { name: "line_description", label: "Line: description", hint: "Required with a custom amount", errorFields: line("description") },
      ]}
      toBody={(values, { locale }) => {
        const currency = values.currency ?? "usd";
        const quantity = values.quantity?.trim() ? { quantity: toInteger(values.quantity) } : {};
        const description = values.line_description ? { description: values.line_description } : {};
        const lines = values.price
          ? [{ price: values.price, ...quantity, ...description }]
          : values.amount?.trim()
            ? [{ unit_amount_atom: toAtoms(values.amount, currency, locale), ...quantity, ...description }]
            : [];
        return {
          customer: values.customer,
          currency,
          ...(values.description ? { description: values.description } : {}),
        ...collectionBody(values),
          ...(lines.length > 0 ? { lines } : {}),
        };
      }}
    />
  );
}
