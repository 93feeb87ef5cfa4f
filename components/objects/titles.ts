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
