import { z } from "zod";
import { PROCESSORS } from "@/lib/payments/processors/list";

/*
 * The body of PUT /payment-processor: one variant per processor of the registry's list, each its
 * own credentials schema plus `processor`. Built from the list, so a new processor adds its variant
 * without a change here (a domain module, not schema.ts: declarations cannot read the list).
 */

const options = PROCESSORS.map((definition) => definition.credentials.extend({ processor: z.literal(definition.name) }).strict());

const [first, ...rest] = options as [(typeof options)[number], ...(typeof options)[number][]];

// One processor is its own schema (a `oneOf` of one is no union); more are told apart by `processor`.
export const PaymentProcessorConnectInput = (rest.length === 0 ? first : z.discriminatedUnion("processor", [first, ...rest])).meta({
  id: "PaymentProcessorConnectInput",
  description: "The processor and its keys. Stripe: `secret_key` (`sk_…` or `rk_…`) and `publishable_key` (`pk_…`), test keys for a sandbox account, live keys for a live one.",
});

export type PaymentProcessorConnectInput = z.output<typeof PaymentProcessorConnectInput>;
