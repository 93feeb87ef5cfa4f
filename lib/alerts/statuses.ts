/*
 * An alert's types and statuses (docs/usage-billing.md, "Alerts"), declared once. Pure (no server
 * imports): the schema, the service and the dashboard read them.
 */

/** usage_threshold: a meter's usage in the period ≥ threshold; spend_threshold: the upcoming invoice total ≥ threshold_atom; credit_balance: the balance < below_atom. */
export const ALERT_TYPES = ["usage_threshold", "spend_threshold", "credit_balance"] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** `active` alerts are evaluated; an `archived` one never again (Stripe's Billing Alerts: archive is final). */
export const ALERT_STATUSES = ["active", "archived"] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** Active alerts an account may have: each is evaluated for every marked customer it applies to. */
export const MAX_ACTIVE_ALERTS = 1000;
