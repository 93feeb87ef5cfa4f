// Pure (no imports): the database schema, the API schema and the proration all read it.

/** How a change request prorates the rest of the current period (lib/subscription-changes/proration.ts). */
export const PRORATION_BEHAVIORS = ["create_prorations", "always_invoice", "none"] as const;
export type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];
