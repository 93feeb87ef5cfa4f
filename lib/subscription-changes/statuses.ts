// Pure (no imports): the database schema, the API schema, the proration and the rules (rules.ts) read them.

export const CHANGE_REQUEST_STATUSES = ["open", "partially_applied", "applied", "canceled", "scheduled"] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

/** How a change request prorates the rest of the current period (lib/subscription-changes/proration.ts). */
export const PRORATION_BEHAVIORS = ["create_prorations", "always_invoice", "none"] as const;
export type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];
