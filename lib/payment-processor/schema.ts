import { z } from "zod";
import { DateTime } from "@/lib/schemas";

/* The account's payment processor connection (docs/payments.md, "Connecting Stripe"). */

export const PaymentProcessor = z
  .object({
    object: z.literal("payment_processor"),
    processor: z.string().meta({ description: "The connected processor.", example: "stripe" }),
    processor_account: z.string().meta({ description: "The merchant's account at the processor.", example: "acct_1Q2w3E4r5T6y7U8i" }),
    secret_key_last4: z.string().meta({ description: "The last 4 characters of the secret key; the key itself is never returned.", example: "x7Qa" }),
    publishable_key: z.string().meta({ example: "pk_test_51Q2w3E4r5T6y7U8i" }),
    webhook_endpoint_id: z.string().meta({ description: "The webhook endpoint the service created at the processor (deleted on disconnect).", example: "we_1Q2w3E4r5T6y7U8i" }),
    webhook_url: z.string().meta({ description: "Where the processor sends its events.", example: "https://billing.example.com/api/processors/stripe/acc_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "PaymentProcessor", description: "The account's connected payment processor." });

export type PaymentProcessorObject = z.input<typeof PaymentProcessor>;

export const ProcessorEventReceipt = z
  .object({
    received: z.literal(true),
    duplicate: z.boolean().meta({ description: "The event was stored before (a redelivery): nothing changed." }),
  })
  .meta({ id: "ProcessorEventReceipt" });
