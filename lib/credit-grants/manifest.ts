import type { DomainManifest } from "@/lib/manifest";

/** Credit grants' ids and events, for the generated registries (lib/manifest.ts). */
export const manifest = {
  ids: { creditGrant: "cg_", creditGrantApplication: "cgap_" },
  events: [
    {
      // Credit granted to a customer (docs/billing.md, "Credit grants"): our own namespace.
      group: "Credit grant",
      aggregateType: "credit_grant",
      schema: "CreditGrant",
      idKind: "creditGrant",
      weight: 0.1,
      types: {
        "credit_grant.created": "Credit was granted to a customer: the amount, currency, category, what it applies to, its priority and the window it is effective in.",
        "credit_grant.applied": "An invoice's finalization paid some of its lines from the grant: `remaining_atom` went down by what it paid (the invoice's `credits_applied` names the lines).",
        "credit_grant.depleted": "The grant has nothing left (`remaining_atom` 0) after an invoice used the rest; emitted after that `credit_grant.applied`.",
        "credit_grant.expired": "The grant reached its `expires_at` (the account's clock) with credit left: what remained no longer applies.",
        "credit_grant.voided": "The merchant voided the grant: what remained no longer applies.",
        "credit_grant.reinstated": "An invoice the grant paid was voided: what the grant paid on it returned to `remaining_atom` (a depleted grant is active again). Not emitted when the grant had expired or been voided by then: that credit stays used.",
      },
    },
  ],
} satisfies DomainManifest;
