import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { PositiveAtoms } from "@/lib/payments/schema";
import { DateTime, Metadata } from "@/lib/schemas";

export const REFUND_STATUSES = ["pending", "succeeded", "failed"] as const;
export const REFUND_REASONS = ["duplicate", "fraudulent", "requested_by_customer"] as const;

export const RefundCreateInput = z
  .strictObject({
    payment: z.string().min(1).meta({ description: "The payment (`py_…`) of this account to refund." }),
    amount_atom: PositiveAtoms.optional().meta({
      description: "Default: all that is not refunded yet. More than that is a 422.",
    }),
    reason: z.enum(REFUND_REASONS).optional(),
    metadata: Metadata.optional(),
  })
  .meta({ id: "RefundCreateInput" });

export const Refund = z
  .object({
    id: z.string().meta({ example: "re_test_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("refund"),
    payment: z.string(),
    amount_atom: z.number().int(),
    currency: z.string(),
    status: z.enum(REFUND_STATUSES),
    reason: z.enum(REFUND_REASONS).nullable(),
    failure_reason: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Refund" });

export const RefundList = listEnvelopeSchema(Refund, "RefundList");

export const RefundListQuery = PaginationQuery.extend({
  payment: z.string().min(1).optional().meta({ description: "Only refunds of this payment." }),
});

export type RefundObject = z.input<typeof Refund>;
