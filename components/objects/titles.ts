/** The generic object kinds' titles by URL segment; server pages read this (kinds.tsx is client code). */
export const OBJECT_KIND_TITLES: Record<string, string> = {
  products: "Products",
  prices: "Prices",
  coupons: "Coupons",
  "payment-intents": "Payment intents",
  payments: "Payments",
  refunds: "Refunds",
  "checkout-sessions": "Checkout sessions",
};

/** The generic kinds in two groups, shown as tabs above each list. */
export const OBJECT_KIND_GROUPS: string[][] = [
  ["products", "prices", "coupons"],
  ["payments", "payment-intents", "refunds", "checkout-sessions"],
];
