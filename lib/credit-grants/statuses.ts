/*
 * A credit grant's statuses (docs/billing.md, "Credit grants"), declared once. Pure (no server
 * imports): the schema, the service and the dashboard read it.
 */

export const CREDIT_GRANT_STATUSES = ["active", "depleted", "expired", "voided"] as const;
export type CreditGrantStatus = (typeof CREDIT_GRANT_STATUSES)[number];

export const CREDIT_GRANT_CATEGORIES = ["paid", "promotional"] as const;
export type CreditGrantCategory = (typeof CREDIT_GRANT_CATEGORIES)[number];

/**
 * Which statuses each action may start from: a grant pays invoices while `active` (and effective,
 * not past its expiry); voiding ends an active or depleted grant; the clock expires an active one.
 */
export const CREDIT_GRANT_ACTION_FROM = {
  void: ["active", "depleted"],
  expire: ["active"],
  apply: ["active"],
} as const satisfies Record<string, readonly CreditGrantStatus[]>;

/** Each status in words, for people (the dashboard). */
export const CREDIT_GRANT_STATUS_WORDS: Record<CreditGrantStatus, string> = {
  active: "Active",
  depleted: "Used up",
  expired: "Expired",
  voided: "Voided",
};
