/*
 * A dispute's statuses, Stripe's own (docs/payments.md, "Disputes"), declared once. Pure (no
 * server imports): the schema, the service and the dashboard read it.
 */

export const DISPUTE_STATUSES = [
  "warning_needs_response",
  "warning_under_review",
  "warning_closed",
  "needs_response",
  "under_review",
  "won",
  "lost",
] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** Closed: the processor decided. A closed dispute never moves again (a late webhook changes nothing). */
export const CLOSED_DISPUTE_STATUSES: readonly DisputeStatus[] = ["warning_closed", "won", "lost"];

export const isDisputeStatus = (value: string): value is DisputeStatus => (DISPUTE_STATUSES as readonly string[]).includes(value);

export const isClosedDispute = (status: string): boolean => (CLOSED_DISPUTE_STATUSES as readonly string[]).includes(status);

/** Each status in words, for people (the dashboard's payment and invoice pages). */
export const DISPUTE_STATUS_WORDS: Record<DisputeStatus, string> = {
  warning_needs_response: "Inquiry: needs a response",
  warning_under_review: "Inquiry: under review",
  warning_closed: "Inquiry closed",
  needs_response: "Needs a response",
  under_review: "Evidence under review",
  won: "Won",
  lost: "Lost",
};

export const disputeStatusWords = (status: string): string => (isDisputeStatus(status) ? DISPUTE_STATUS_WORDS[status] : status);
