import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { Currency, DateTime, Metadata } from "@/lib/schemas";
import { PAYMENT_INTENT_STATUSES, PAYMENT_STATUSES } from "./statuses";

/** The sandbox payment methods; what each one does: lib/payments/processors/sandbox/methods.ts. */
export const SANDBOX_PAYMENT_METHODS = [
  "pm_sandbox_succeeds",
  "pm_sandbox_declined",
  "pm_sandbox_requires_action",
  "pm_sandbox_partially_funded",
  "pm_sandbox_refund_fails",
] as const;

export { PAYMENT_INTENT_STATUSES, PAYMENT_STATUSES };

export const CAPTURE_METHODS = ["automatic", "manual"] as const;

/** A positive integer of atoms up to 2^53 - 1: a decimal, a string or a larger number is a 422. */
export const PositiveAtoms = z
  .int({ error: "Must be an integer number of atomic units (cents for usd), up to 2^53 - 1." })
  .min(1, "Must be 1 or more.")
  .max(Number.MAX_SAFE_INTEGER)
  .meta({ description: "Integer amount in atomic units (cents for usd). Never a decimal.", example: 2000 });

const PaymentMethod = z
  .string()
  .min(1)
  .meta({
    description: `A sandbox payment method (${SANDBOX_PAYMENT_METHODS.join(", ")}); sandbox accounts only (a live account is charged through its connected processor).`,
    example: "pm_sandbox_succeeds",
  });

export const PaymentIntentCreateInput = z
  .strictObject({
    amount_atom: PositiveAtoms,
    currency: Currency,
    customer: z.string().min(1).optional().meta({ description: "A customer (`cus_…`) of this account." }),
    capture_method: z.enum(CAPTURE_METHODS).optional().meta({ description: "Default `automatic`." }),
    payment_method: PaymentMethod.optional(),
    confirm: z.boolean().optional().meta({ description: "Confirm at once (needs `payment_method`)." }),
    metadata: Metadata.optional(),
  })
  .meta({ id: "PaymentIntentCreateInput" });

export const PaymentIntentConfirmInput = z
  .strictObject({
    payment_method: PaymentMethod.optional().meta({
      description: "Required unless the intent already has one (e.g. after requires_action).",
    }),
  })
  .meta({ id: "PaymentIntentConfirmInput" });

export const PaymentIntentCaptureInput = z
  .strictObject({
    amount_to_capture: PositiveAtoms.optional().meta({
      description: "At most `amount_capturable_atom` (the default); the rest is released.",
    }),
  })
  .meta({ id: "PaymentIntentCaptureInput" });

export const PaymentIntentCancelInput = z.strictObject({}).meta({ id: "PaymentIntentCancelInput" });

export const PaymentIntent = z
  .object({
    id: z.string().meta({ example: "pi_test_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("payment_intent"),
    amount_atom: z.number().int(),
    amount_capturable_atom: z.number().int(),
    amount_received_atom: z.number().int(),
    currency: z.string(),
    customer: z.string().nullable(),
    invoice: z.string().nullable(),
    status: z.enum(PAYMENT_INTENT_STATUSES),
    capture_method: z.enum(CAPTURE_METHODS),
    payment_method: z.string().nullable(),
    last_payment_error: z.string().nullable(),
    canceled_at: DateTime.nullable(),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "PaymentIntent" });

export const Payment = z
  .object({
    id: z.string().meta({ example: "py_test_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("payment"),
    payment_intent: z.string(),
    amount_atom: z.number().int(),
    amount_refunded_atom: z.number().int(),
    currency: z.string(),
    status: z.enum(PAYMENT_STATUSES),
    payment_method: z.string(),
    failure_message: z.string().nullable(),
    livemode: z.boolean(),
    created: DateTime,
  })
  .meta({ id: "Payment" });

export const PaymentIntentList = listEnvelopeSchema(PaymentIntent, "PaymentIntentList");
export const PaymentList = listEnvelopeSchema(Payment, "PaymentList");

export const PaymentIntentListQuery = PaginationQuery.extend({
  customer: z.string().min(1).optional().meta({ description: "Only intents of this customer." }),
  status: z.enum(PAYMENT_INTENT_STATUSES).optional(),
});

export const PaymentListQuery = PaginationQuery.extend({
  payment_intent: z.string().min(1).optional().meta({ description: "Only payments of this intent." }),
});

export type PaymentIntentObject = z.input<typeof PaymentIntent>;
export type PaymentObject = z.input<typeof Payment>;
