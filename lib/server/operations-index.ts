import { paymentProcessorOperations } from "@/lib/payment-processor/operations";
import type { Operation } from "@/lib/api/operation";
import { accountSettingsOperations } from "@/lib/account-settings/operations";
import { taxRateOperations } from "@/lib/tax-rates/operations";
import { apiTokenOperations } from "@/lib/api-tokens/operations";
import { billingStatusOperations } from "@/lib/billing-status/operations";
import { checkoutOperations } from "@/lib/checkout/operations";
import { testClockOperations } from "@/lib/clock/operations";
import { couponOperations } from "@/lib/coupons/operations";
import { customerOperations } from "@/lib/customers/operations";
import { customerBalanceOperations } from "@/lib/customer-balance/operations";
import { creditNoteOperations } from "@/lib/credit-notes/operations";
import { creditGrantOperations } from "@/lib/credit-grants/operations";
import { emailOperations } from "@/lib/emails/operations";
import { discountOperations } from "@/lib/discounts/operations";
import { entitlementOperations } from "@/lib/entitlements/operations";
import { eventOperations } from "@/lib/events-api/operations";
import { metaOperations } from "@/lib/health/operations";
import { flowOperations } from "@/lib/flows/operations";
import { createInvoiceOperation, invoiceOperations } from "@/lib/invoices/operations";
import { meterOperations } from "@/lib/meters/operations";
import { usageOperations } from "@/lib/usage/operations";
import { alertOperations } from "@/lib/alerts/operations";
import { paymentOperations } from "@/lib/payments/operations";
import { paymentMethodOperations } from "@/lib/payment-methods/operations";
import { portalOperations } from "@/lib/portal/operations";
import { priceOperations } from "@/lib/prices/operations";
import { productOperations } from "@/lib/products/operations";
import { requestLogOperations } from "@/lib/request-logs/operations";
import { refundOperations } from "@/lib/refunds/operations";
import { disputeOperations } from "@/lib/disputes/operations";
import { subscriptionChangeOperations } from "@/lib/subscription-changes/operations";
import { subscriptionOperations } from "@/lib/subscriptions/operations";
import { webhookOperations } from "@/lib/webhooks/operations";

/**
 * `list` with `inserted` after `anchor`: the upcoming invoice's preview (lib/flows) keeps its place
 * in the document, after creating an invoice, though it moved above the invoices' folder.
 */
function withAfter(list: Operation[], anchor: Operation, inserted: Operation[]): Operation[] {
  const at = list.indexOf(anchor) + 1;
  return [...list.slice(0, at), ...inserted, ...list.slice(at)];
}

/**
 * Every operation of the API, in document order: the routing truth. The catch-all route serves
 * exactly these (each through the handler beside it, lib/server/routes.ts) and the OpenAPI document
 * describes exactly these. The one hand list of the domain folders: `npm run registries` generates
 * routes.ts's handlers from it, and the order of the manifests' event groups. Declarations only: no services are imported here, so the document and
 * its tests load without a database.
 */
export const API_OPERATIONS: Operation[] = [
  ...billingStatusOperations,
  ...eventOperations,
  ...customerOperations,
  ...couponOperations,
  ...discountOperations,
  ...productOperations,
  ...priceOperations,
  ...paymentOperations,
  ...paymentMethodOperations,
  ...refundOperations,
  ...disputeOperations,
  ...withAfter(invoiceOperations, createInvoiceOperation, flowOperations),
  ...creditNoteOperations,
  ...emailOperations,
  ...customerBalanceOperations,
  ...creditGrantOperations,
  ...subscriptionOperations,
  ...subscriptionChangeOperations,
  ...checkoutOperations,
  ...webhookOperations,
  ...apiTokenOperations,
  ...testClockOperations,
  ...metaOperations,
  ...requestLogOperations,
  ...accountSettingsOperations,
  ...paymentProcessorOperations,
  ...taxRateOperations,
  ...meterOperations,
  ...usageOperations,
  ...alertOperations,
  ...entitlementOperations,
  ...portalOperations,
];
