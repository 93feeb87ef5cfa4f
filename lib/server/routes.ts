import { paymentProcessorHandlers } from "@/lib/payment-processor/handlers";
import { accountSettingsHandlers } from "@/lib/account-settings/handlers";
import { taxRateHandlers } from "@/lib/tax-rates/handlers";
import { apiTokenHandlers } from "@/lib/api-tokens/handlers";
import { billingStatusHandlers } from "@/lib/billing-status/handlers";
import { checkoutHandlers } from "@/lib/checkout/handlers";
import { testClockHandlers } from "@/lib/clock/handlers";
import { couponHandlers } from "@/lib/coupons/handlers";
import { customerHandlers } from "@/lib/customers/handlers";
import { customerBalanceHandlers } from "@/lib/customer-balance/handlers";
import { creditNoteHandlers } from "@/lib/credit-notes/handlers";
import { emailHandlers } from "@/lib/emails/handlers";
import { discountHandlers } from "@/lib/discounts/handlers";
import { entitlementHandlers } from "@/lib/entitlements/handlers";
import { eventHandlers } from "@/lib/events-api/handlers";
import { metaHandlers } from "@/lib/health/handlers";
import { flowHandlers } from "@/lib/flows/handlers";
import { invoiceHandlers } from "@/lib/invoices/handlers";
import { meterHandlers } from "@/lib/meters/handlers";
import { usageHandlers } from "@/lib/usage/handlers";
import { paymentHandlers } from "@/lib/payments/handlers";
import { portalHandlers } from "@/lib/portal/handlers";
import { priceHandlers } from "@/lib/prices/handlers";
import { productHandlers } from "@/lib/products/handlers";
import { requestLogHandlers } from "@/lib/request-logs/handlers";
import { refundHandlers } from "@/lib/refunds/handlers";
import { subscriptionChangeHandlers } from "@/lib/subscription-changes/handlers";
import { subscriptionHandlers } from "@/lib/subscriptions/handlers";
import { webhookHandlers } from "@/lib/webhooks/handlers";
import { API_OPERATIONS } from "./operations-index";
import { compileRouter } from "@/lib/api/router";

/** Every operation's handler; compileRouter refuses an operation without one, or one unlisted. */
export const API_HANDLERS = [
  ...billingStatusHandlers,
  ...eventHandlers,
  ...customerHandlers,
  ...couponHandlers,
  ...discountHandlers,
  ...productHandlers,
  ...priceHandlers,
  ...paymentHandlers,
  ...refundHandlers,
  ...invoiceHandlers,
  ...flowHandlers,
  ...creditNoteHandlers,
  ...emailHandlers,
  ...customerBalanceHandlers,
  ...subscriptionHandlers,
  ...subscriptionChangeHandlers,
  ...checkoutHandlers,
  ...webhookHandlers,
  ...apiTokenHandlers,
  ...testClockHandlers,
  ...metaHandlers,
  ...requestLogHandlers,
  ...accountSettingsHandlers,
  ...paymentProcessorHandlers,
  ...taxRateHandlers,
  ...meterHandlers,
  ...usageHandlers,
  ...entitlementHandlers,
  ...portalHandlers,
];

/** The catch-all route's exports (app/api/[[...path]]/route.ts). */
export const apiRouter = compileRouter(API_OPERATIONS, API_HANDLERS);
