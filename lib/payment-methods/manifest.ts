import type { DomainManifest } from "@/lib/manifest";

/** Payment methods' ids and events, for the generated registries (lib/manifest.ts). */
export const manifest = {
  ids: { paymentMethod: "pm_" },
  events: [
    {
      // A customer's saved cards (docs/payments.md, "Payment methods"): our own namespace.
      group: "Payment method",
      aggregateType: "payment_method",
      schema: "PaymentMethod",
      idKind: "paymentMethod",
      weight: 0.1,
      types: {
        "payment_method.attached": "A payment method was saved for a customer (`POST /customers/{id}/payment-methods`): its card brand, last 4 digits and expiry.",
        "payment_method.detached": "A payment method was detached from its customer (`detached_at`); it is no longer listed or charged.",
        "payment_method.updated":
          "A payment method's details changed: the merchant's update (`metadata`, the card's expiry) or the processor's word (Stripe's `payment_method.updated` and `payment_method.automatically_updated`, the card updater's new expiry or last 4), once per change.",
      },
    },
  ],
} satisfies DomainManifest;
