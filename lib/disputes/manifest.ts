import type { DomainManifest } from "@/lib/manifest";

/** Disputes' ids and events, for the generated registries (lib/manifest.ts). */
export const manifest = {
  ids: { dispute: "dp_" },
  events: [
    {
      // A payment disputed at the processor (docs/payments.md, "Disputes"): our own namespace.
      group: "Dispute",
      aggregateType: "dispute",
      schema: "Dispute",
      idKind: "dispute",
      weight: 0.05,
      types: {
        "dispute.created": "The card holder disputed a payment at the processor (Stripe's `charge.dispute.created`): the disputed amount, the reason and the date evidence is due by.",
        "dispute.updated": "A dispute that is still open changed at the processor: its status (evidence submitted: `under_review`), amount, reason or evidence due date.",
        "dispute.closed": "A dispute was closed at the processor: `won`, `lost` or `warning_closed`. A closed dispute never changes again.",
      },
    },
  ],
} satisfies DomainManifest;
