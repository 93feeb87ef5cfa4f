"use client";

import { useState } from "react";
import { useCan } from "@/components/dashboard/role";
import { Button, Card } from "@/components/ui";
import { ApiForm } from "./api-form";
import { currencyOptionsBody, toAtoms } from "./form-values";
import { ObjectLink } from "./links";
import { NewTaxRateForm } from "./tax-rate-forms";

/** The coupon form's two kinds: a percentage off, or an amount off in a currency (with its options). */
const byAmount = (values: Record<string, string>) => values.discount === "amount";
const byPercent = (values: Record<string, string>) => !byAmount(values);

/** The "create" form above a generic list, for the kinds a merchant creates by hand. */
export function ObjectCreate({ accountId, slug }: { accountId: string; slug: string }) {
  const [open, setOpen] = useState(false);
  const allowed = useCan("admin");
  if (!allowed || (slug !== "products" && slug !== "coupons" && slug !== "tax-rates")) return null;
  const title = slug === "products" ? "New product" : slug === "coupons" ? "New coupon" : "New tax rate";
  if (!open) {
    return (
      <div>
        <Button onClick={() => setOpen(true)}>{title}</Button>
      </div>
    );
  }
  if (slug === "tax-rates") {
    return (
      <Card title={title} actions={<Button variant="secondary" onClick={() => setOpen(false)}>Close</Button>}>
        <NewTaxRateForm accountId={accountId} />
      </Card>
    );
  }
  // The form stays for the next one: a confirmation links to what was made, and the list shows it.
  const created = (noun: string) =>
    function Created(object: Record<string, unknown>) {
      return (
        <>
          {noun} created: <ObjectLink accountId={accountId} id={object.id}>{String(object.name ?? object.id)}</ObjectLink>
        </>
      );
    };
  return (
    <Card title={slug === "products" ? "New product" : "New coupon"} actions={<Button variant="secondary" onClick={() => setOpen(false)}>Close</Button>}>
      {slug === "products" ? (
        <ApiForm
          label="New product"
          submitLabel="Create product"
          operation="createProduct"
          params={{ path: { account_id: accountId } }}
          invalidate={[["products", accountId]]}
          confirmation={created("Product")}
          fields={[{ name: "name", label: "Name", required: true }]}
          toBody={(values) => ({ name: values.name })}
        />
      ) : (
        <ApiForm
          label="New coupon"
          submitLabel="Create coupon"
          operation="createCoupon"
          params={{ path: { account_id: accountId } }}
          invalidate={[["coupons", accountId]]}
          confirmation={created("Coupon")}
          fields={[
            { name: "name", label: "Name (optional)" },
            {
              name: "discount",
              label: "Discount",
              kind: "select",
              options: [
                { value: "percent", label: "A percentage" },
                { value: "amount", label: "A fixed amount" },
              ],
            },
            { name: "percent_off", label: "Percent off", kind: "number", required: true, errorFields: ["(body)"], when: byPercent },
            {
              name: "amount_off_atom",
              label: "Amount off",
              kind: "money",
              required: true,
              currency: { field: "currency" },
              hint: "e.g. 5.00 for $5.00 off",
              errorFields: ["(body)"],
              when: byAmount,
            },
            { name: "currency", label: "Currency", initial: "usd", required: true, when: byAmount },
            {
              name: "currency_options",
              label: "Amount off in other currencies (optional)",
              hint: "e.g. eur 4.50; jpy 700: taken off invoices in each; an invoice in a currency not named is not discounted",
              errorFields: ["currency_options"],
              when: byAmount,
            },
            {
              name: "duration",
              label: "Duration",
              kind: "select",
              options: [
                { value: "once", label: "Once" },
                { value: "forever", label: "Forever" },
                { value: "repeating", label: "Repeating" },
              ],
            },
            { name: "duration_in_months", label: "Months (repeating only)", kind: "number" },
          ]}
          toBody={(values, { locale }) => ({
            ...(values.name ? { name: values.name } : {}),
            ...(byAmount(values)
              ? {
                  amount_off_atom: toAtoms(values.amount_off_atom ?? "", values.currency ?? "usd", locale),
                  currency: values.currency,
                  ...currencyOptionsBody(values.currency_options ?? "", "amount_off_atom", locale),
                }
              : { percent_off: Number(values.percent_off) }),
            duration: values.duration,
            ...(values.duration_in_months ? { duration_in_months: Number(values.duration_in_months) } : {}),
          })}
        />
      )}
    </Card>
  );
}
