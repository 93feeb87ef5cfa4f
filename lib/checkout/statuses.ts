// Pure (no server imports): the API's schema and the dashboard's filters read this one list.

export const CHECKOUT_STATUSES = ["open", "complete", "expired"] as const;
export const PAYMENT_STATUSES = ["unpaid", "paid", "no_payment_required"] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];
