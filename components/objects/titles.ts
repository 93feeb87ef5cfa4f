/** The generic object kinds' titles by URL segment; server pages read this (kinds.tsx is client code). */
export const KIND_TITLE = {
  products: "Products",
  prices: "Prices",
  coupons: "Coupons",
  "tax-rates": "Tax rates",
  "payment-intents": "Payment intents",
  payments: "Payments",
  refunds: "Refunds",
  disputes: "Disputes",
  "checkout-sessions": "Checkout sessions",
} as const;

/** The same titles, looked up by a URL segment that may name no kind. */
export const OBJECT_KIND_TITLES: Readonly<Record<string, string>> = KIND_TITLE;

/** The generic kinds in two groups, shown as tabs above each list. */
export const OBJECT_KIND_GROUPS: string[][] = [
  ["products", "prices", "coupons", "tax-rates"],
  ["payments", "payment-intents", "refunds", "disputes", "checkout-sessions"],
];
