import { z } from "zod";
import { listEnvelopeSchema } from "@/lib/api/pagination";
import { DateTime, MetadataPatch } from "@/lib/schemas";

/* A customer's saved payment method (docs/payments.md, "Payment methods"). */

export const PAYMENT_METHOD_PROCESSORS = ["sandbox", "stripe"] as const;

export const PaymentMethod = z
  .object({
    object: z.literal("payment_method"),
    id: z.string().meta({ example: "pm_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    customer: z.string().meta({ description: "The customer (`cus_…`) it belongs to." }),
    processor: z.enum(PAYMENT_METHOD_PROCESSORS).meta({ description: "The processor that holds the card: `sandbox` (sandbox accounts' `pm_sandbox_*` methods) or `stripe` (the connected account)." }),
    processor_payment_method: z.string().meta({ description: "The processor's id of the method (Stripe's `pm_…`, or the sandbox method).", example: "pm_sandbox_succeeds" }),
    card: z
      .object({
        brand: z.string().nullable().meta({ example: "visa" }),
        last4: z.string().nullable().meta({ example: "4242" }),
        exp_month: z.number().int().nullable().meta({ example: 12 }),
        exp_year: z.number().int().nullable().meta({ example: 2034 }),
      })
      .meta({ description: "What the processor says about the card." }),
    created: DateTime,
    detached_at: DateTime.nullable().meta({ description: "When it was detached from the customer; null while attached." }),
    metadata: z.record(z.string(), z.string()).meta({ description: "The merchant's own key-value pairs (`POST /customers/{id}/payment-methods/{pm}`); never sent to the processor." }),
    livemode: z.boolean(),
  })
  .meta({ id: "PaymentMethod", description: "A payment method saved for a customer." });

export type PaymentMethodObject = z.input<typeof PaymentMethod>;

/** Every attached method of the customer, newest first, in one page (a customer has a few). */
export const PaymentMethodList = listEnvelopeSchema(PaymentMethod, "PaymentMethodList");

export const AttachPaymentMethodInput = z
  .strictObject({
    processor_payment_method: z.string().min(1).max(255).meta({
      description:
        "The method to attach: on a sandbox account a sandbox method (`pm_sandbox_succeeds`, …); otherwise a method created at the connected processor (Stripe.js's `pm_…`), attached there to the customer.",
      example: "pm_sandbox_succeeds",
    }),
  })
  .meta({ id: "AttachPaymentMethodInput" });

/** Stripe's PaymentMethod update, for a card: `metadata` (ours) and the card's new expiry (sent to the processor). */
export const UpdatePaymentMethodInput = z
  .strictObject({
    metadata: MetadataPatch.optional(),
    card: z
      .strictObject({
        exp_month: z.number().int().min(1).max(12).optional(),
        exp_year: z.number().int().min(2000).max(2100).optional(),
      })
      .optional()
      .meta({ description: "The card's new expiry (Stripe's `card[exp_month]`, `card[exp_year]`): updated at the processor, which answers the card as it now is." }),
  })
  .meta({ id: "UpdatePaymentMethodInput" });
