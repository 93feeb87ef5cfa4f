import type { paymentMethods } from "@/db/schema";
import type { PAYMENT_METHOD_PROCESSORS, PaymentMethodObject } from "./schema";

export type PaymentMethodRow = typeof paymentMethods.$inferSelect;

export function serializePaymentMethod(row: PaymentMethodRow, livemode: boolean): PaymentMethodObject {
  return {
    object: "payment_method",
    id: row.id,
    customer: row.customerId,
    processor: row.processor as (typeof PAYMENT_METHOD_PROCESSORS)[number],
    processor_payment_method: row.processorReference,
    card: { brand: row.brand, last4: row.last4, exp_month: row.expMonth, exp_year: row.expYear },
    created: row.created.toISOString(),
    detached_at: row.detachedAt?.toISOString() ?? null,
    metadata: row.metadata,
    livemode,
  };
}
