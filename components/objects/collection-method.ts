import type { FormField } from "@/components/objects/api-form";
import { toInteger } from "@/components/objects/pickers";

/**
 * The collection method of a new invoice or subscription (docs/emails.md, "Collection method"):
 * charged automatically (the default), or emailed to the customer with `days_until_due` to pay,
 * which is asked only for `send_invoice` (empty: the API's default, 30).
 */
export const collectionFields: readonly FormField[] = [
  {
    name: "collection_method",
    label: "Collection",
    kind: "select",
    options: [
      { value: "charge_automatically", label: "Charge automatically" },
      { value: "send_invoice", label: "Email the invoice (send_invoice)" },
    ],
    initial: "charge_automatically",
  },
  {
    name: "days_until_due",
    label: "Days until due",
    kind: "number",
    hint: "Empty: 30 days after finalization",
    when: (values) => values.collection_method === "send_invoice",
  },
];

/** The body's collection fields: none for the default, so a form left alone sends what it always did. */
export function collectionBody(values: Record<string, string | undefined>): { collection_method?: "send_invoice"; days_until_due?: number | string } {
  if (values.collection_method !== "send_invoice") return {};
  return { collection_method: "send_invoice", ...(values.days_until_due?.trim() ? { days_until_due: toInteger(values.days_until_due) } : {}) };
}

/** How an invoice or subscription is collected, in words (its page's "Collection"). */
export function collectionLabel(object: { collection_method: string; days_until_due: number | null }): string {
  if (object.collection_method !== "send_invoice") return "Charge automatically";
  return object.days_until_due === null ? "Email the invoice (send_invoice)" : `Email the invoice (send_invoice), due ${object.days_until_due} days after finalization`;
}
