"use client";

import { useState } from "react";
import { useCan } from "@/components/dashboard/role";
import { Button, Card } from "@/components/ui";
import { ApiForm } from "./api-form";
import { ObjectLink } from "./links";
import { NewTaxRateForm } from "./tax-rate-forms";

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
            { name: "percent_off", label: "Percent off", kind: "number", required: true, errorFields: ["(body)"] },
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
          toBody={(values) => ({
            ...(values.name ? { name: values.name } : {}),
            percent_off: Number(values.percent_off),
            duration: values.duration,
            ...(values.duration_in_months ? { duration_in_months: Number(values.duration_in_months) } : {}),
          })}
        />
      )}
    </Card>
  );
}
