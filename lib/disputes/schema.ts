import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime } from "@/lib/schemas";
import { DISPUTE_STATUSES } from "./statuses";

/* A payment disputed at the processor (docs/payments.md, "Disputes"), shaped as Stripe's Dispute. */

export const DISPUTE_PROCESSORS = ["stripe"] as const;

export const Dispute = z
  .object({
    object: z.literal("dispute"),
    id: z.string().meta({ example: "dp_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    payment: z.string().meta({ description: "The disputed payment (`py_…`)." }),
    payment_intent: z.string().meta({ description: "The payment intent (`pi_…`) of that payment." }),
    processor: z.enum(DISPUTE_PROCESSORS).meta({ description: "The processor that reported the dispute." }),
    processor_dispute: z.string().meta({ description: "The processor's id of the dispute (Stripe's `du_…`).", example: "du_1Q2w3E4r5T6y7U8i" }),
    amount_atom: z.number().int().meta({ description: "The disputed amount, in atoms of `currency`." }),
    currency: z.string().meta({ example: "usd" }),
    reason: z.string().meta({
      description:
        "The card holder's reason, as the processor gives it (Stripe's: `fraudulent`, `duplicate`, `product_not_received`, `product_unacceptable`, `subscription_canceled`, `credit_not_processed`, `unrecognized`, `general`, …).",
      example: "fraudulent",
    }),
    status: z.enum(DISPUTE_STATUSES).meta({
      description:
        "Stripe's statuses: `warning_*` for an inquiry (no money withdrawn yet), `needs_response` until evidence is submitted, `under_review` after, and the closed ones `won`, `lost`, `warning_closed`.",
    }),
    evidence_due_by: DateTime.nullable().meta({ description: "When evidence must be submitted at the processor; null when none is asked for." }),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Dispute", description: "A payment disputed by the card holder at the processor." });

export type DisputeObject = z.input<typeof Dispute>;

export const DisputeList = listEnvelopeSchema(Dispute, "DisputeList");

export const DisputeListQuery = PaginationQuery.extend({
  payment: z.string().min(1).optional().meta({ description: "Only disputes of this payment." }),
  payment_intent: z.string().min(1).optional().meta({ description: "Only disputes of this payment intent's payments." }),
});
