import type { DomainManifest } from "@/lib/manifest";

/** Alerts' ids and events, for the generated registries (lib/manifest.ts). */
export const manifest = {
  ids: { alert: "alrt_", alertTrigger: "atrg_" },
  events: [
    {
      // A usage, spend or credit-balance alert crossed for a customer in a period (docs/usage-billing.md, "Alerts"): our own namespace.
      group: "Alert",
      aggregateType: "alert_trigger",
      schema: "AlertTrigger",
      idKind: "alertTrigger",
      weight: 0.05,
      types: {
        "alert.triggered":
          "An alert's threshold was crossed for a customer in its current period: the alert, its type, the customer, the meter (usage alerts), the value reached and the threshold. Once per alert, customer and period.",
        "alert.resolved": "The period in which an alert triggered for a customer ended: the alert may trigger again in the new period.",
      },
    },
  ],
} satisfies DomainManifest;
