"use client";

import { ApiForm, toAtoms } from "@/components/objects/api-form";
import { CreatePanel } from "@/components/ui";
import { alertQueryKeys } from "./format";

// lib/alerts/statuses.ts's ALERT_TYPES, listed here so this page does not ship zod; the API validates.
const TYPES = [
  { value: "usage_threshold", label: "Usage threshold (a meter's usage in the period)" },
  { value: "spend_threshold", label: "Spend threshold (the upcoming invoice)" },
  { value: "credit_balance", label: "Credit balance (below an amount)" },
] as const;

/** "New alert" above the list: a usage, spend or credit-balance threshold, for one customer or all. */
export function CreateAlert({ accountId }: { accountId: string }) {
  const usage = (values: Record<string, string>) => (values.type || "usage_threshold") === "usage_threshold";
  return (
    <CreatePanel title="New alert">
      <ApiForm
        label="New alert"
        submitLabel="Create alert"
        operation="createAlert"
        params={{ path: { account_id: accountId } }}
        invalidate={[alertQueryKeys.alerts(accountId)]}
        fields={[
          { name: "type", label: "Type", kind: "select", options: TYPES },
          { name: "title", label: "Title (optional)" },
          { name: "meter", label: "Meter", hint: "mtr_…", when: usage, required: true },
          { name: "threshold", label: "Threshold", kind: "number", hint: "The usage in the period at which it triggers", when: usage, required: true },
          { name: "currency", label: "Currency", hint: "e.g. usd", when: (values) => !usage(values), required: true },
          {
            name: "amount",
            label: "Amount",
            kind: "money",
            currency: { field: "currency" },
            hint: "Spend: the upcoming invoice total at which it triggers. Credit: it triggers below this.",
            errorFields: ["threshold_atom", "below_atom"],
            when: (values) => !usage(values),
            required: true,
          },
          { name: "customer", label: "Customer (optional)", hint: "cus_… — empty: every customer, each on its own" },
        ]}
        toBody={(values, context) => {
          const common = { ...(values.title ? { title: values.title } : {}), ...(values.customer ? { customer: values.customer } : {}) };
          const type = values.type || "usage_threshold";
          if (type === "usage_threshold") return { type, meter: values.meter ?? "", threshold: /^\d+$/.test(values.threshold ?? "") ? Number(values.threshold) : (values.threshold ?? ""), ...common };
          const currency = (values.currency ?? "").toLowerCase();
          const atoms = toAtoms(values.amount ?? "", currency, context.locale);
          return type === "spend_threshold"
            ? { type, currency, threshold_atom: atoms, ...common }
            : { type: "credit_balance" as const, currency, below_atom: atoms, ...common };
        }}
      />
    </CreatePanel>
  );
}
