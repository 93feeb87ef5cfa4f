import { z } from "zod";
import { DateTime } from "@/lib/schemas";
import { ChangeRequestCreateInput } from "@/lib/subscription-changes/schema";
import { Invoice, InvoiceLine } from "@/lib/invoices/schema";

/* `POST /invoices/preview`: the body and the answer (lib/subscriptions/upcoming.ts builds it). */

export const InvoicePreviewInput = z
  .strictObject({
    customer: z.string().min(1).meta({ description: "The customer (`cus_…`) of this account.", example: "cus_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    subscription: z.string().min(1).optional().meta({
      description:
        "The customer's subscription (`sub_…`) whose next renewal to preview. Absent: the customer's only subscription that is not cancelled (422 when it has none or several).",
    }),
    // The change request's own fields: the same steps, rules and errors (named `changes.steps.N.field`).
    changes: ChangeRequestCreateInput.pick({ steps: true, effective: true, proration_behavior: true }).optional().meta({
      description:
        "A change to preview as if a change request with these `steps` (and `effective`, `proration_behavior`) were created and applied at `proration_date`: nothing is stored. `now`: `proration_invoice` is what applying it collects at once, `proration_credit_atom` what it credits to the balance; the renewal bills the items after it. `period_end`: it joins the pending changes.",
    }),
    proration_date: DateTime.optional().meta({
      description: "With `changes`: the instant the change is prorated at, within the current period (default: the account's clock now).",
    }),
  })
  .meta({ id: "InvoicePreviewInput" });

export const InvoicePreviewLine = InvoiceLine.extend({
  id: z.null().meta({ description: "A preview's lines have no id: nothing is stored." }),
  proration: z.boolean().meta({ description: "true: the line bills part of the current period for a change (from `proration_date` to the period end)." }),
}).meta({ id: "InvoicePreviewLine" });

const previewFields = {
  id: z.null().meta({ description: "Null: a preview is not stored; the invoice gets its id when it is made." }),
  status: z.literal("draft"),
  lines: z.array(InvoicePreviewLine),
  period_start: DateTime.meta({ description: "The start of what it bills: the next period for the renewal, `proration_date` for a proration." }),
  period_end: DateTime.meta({ description: "The end of what it bills." }),
  starting_balance_atom: z.number().int().meta({ description: "The customer's balance in the currency as finalization would meet it (as it stands now, less what an earlier previewed invoice takes)." }),
  ending_balance_atom: z.number().int().meta({ description: "The balance left after it: a credit lowers `due_amount_atom`, a debit adds to it." }),
  next_payment_attempt: DateTime.nullable().meta({
    description: "When it would be finalized and its payment attempted with the subscription's `default_payment_method`; null without one (the invoice stays open to be paid).",
  }),
};

export const ProrationInvoicePreview = Invoice.extend(previewFields).meta({ id: "ProrationInvoicePreview" });

export const InvoicePreview = Invoice.extend({
  ...previewFields,
  proration_date: DateTime.nullable().meta({ description: "With `changes`: the instant the change was prorated at; else null." }),
  proration_credit_atom: z.number().int().meta({
    description: "With `changes` effective now that lower the price: the unused time applying it credits to the customer's balance (in `starting_balance_atom`); else 0.",
  }),
  proration_invoice: ProrationInvoicePreview.nullable().meta({
    description:
      "With `changes` effective now and something due now: the invoice applying the change makes and collects at once (one proration line), finalized before the renewal (it takes from the balance first). Null otherwise (nothing due now: a downgrade, a trial, `period_end`).",
  }),
}).meta({ id: "InvoicePreview" });

export type InvoicePreviewObject = z.input<typeof InvoicePreview>;
