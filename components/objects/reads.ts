import { dashboardCall, type CallInput, type OperationId } from "@/components/api-client";
import type { ListEnvelope } from "@/components/api-types";
import type { ApiObject } from "./labels";

/** A list's query as the dashboard's URL holds it: filters, limit and offset as text. */
export type ListQuery = Record<string, string>;

// Filters come from the URL as text; the API parses and validates them (a bad one is its 400,
// shown in the list), so they are passed on as the operation's query without a second parser.
const asQuery = <Id extends OperationId>(query: ListQuery) => query as unknown as NonNullable<CallInput<Id>["query"]>;

/** How the generic pages read one kind: its list and one object, as API operations. */
export type ObjectReads = {
  list: (accountId: string, query: ListQuery) => Promise<ListEnvelope<ApiObject>>;
  get: (accountId: string, id: string) => Promise<ApiObject>;
};

/** The generic kinds' reads by dashboard URL segment (components/objects/kinds.tsx). */
export const OBJECT_READS = {
  products: {
    list: (account_id, query) => dashboardCall("listProducts", { path: { account_id }, query: asQuery<"listProducts">(query) }),
    get: (account_id, product_id) => dashboardCall("getProduct", { path: { account_id, product_id } }),
  },
  prices: {
    list: (account_id, query) => dashboardCall("listPrices", { path: { account_id }, query: asQuery<"listPrices">(query) }),
    get: (account_id, price_id) => dashboardCall("getPrice", { path: { account_id, price_id } }),
  },
  coupons: {
    list: (account_id, query) => dashboardCall("listCoupons", { path: { account_id }, query: asQuery<"listCoupons">(query) }),
    get: (account_id, coupon_id) => dashboardCall("getCoupon", { path: { account_id, coupon_id } }),
  },
  "tax-rates": {
    list: (account_id, query) => dashboardCall("listTaxRates", { path: { account_id }, query: asQuery<"listTaxRates">(query) }),
    get: (account_id, tax_rate_id) => dashboardCall("getTaxRate", { path: { account_id, tax_rate_id } }),
  },
  "payment-intents": {
    list: (account_id, query) => dashboardCall("listPaymentIntents", { path: { account_id }, query: asQuery<"listPaymentIntents">(query) }),
    get: (account_id, payment_intent_id) => dashboardCall("getPaymentIntent", { path: { account_id, payment_intent_id } }),
  },
  payments: {
    list: (account_id, query) => dashboardCall("listPayments", { path: { account_id }, query: asQuery<"listPayments">(query) }),
    get: (account_id, payment_id) => dashboardCall("getPayment", { path: { account_id, payment_id } }),
  },
  refunds: {
    list: (account_id, query) => dashboardCall("listRefunds", { path: { account_id }, query: asQuery<"listRefunds">(query) }),
    get: (account_id, refund_id) => dashboardCall("getRefund", { path: { account_id, refund_id } }),
  },
  disputes: {
    list: (account_id, query) => dashboardCall("listDisputes", { path: { account_id }, query: asQuery<"listDisputes">(query) }),
    get: (account_id, dispute_id) => dashboardCall("getDispute", { path: { account_id, dispute_id } }),
  },
  "checkout-sessions": {
    list: (account_id, query) => dashboardCall("listCheckoutSessions", { path: { account_id }, query: asQuery<"listCheckoutSessions">(query) }),
    get: (account_id, session_id) => dashboardCall("getCheckoutSession", { path: { account_id, session_id } }),
  },
} satisfies Record<string, ObjectReads>;
