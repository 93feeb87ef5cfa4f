import { checkoutSessionExpiry } from "@/lib/checkout/expiry";
import { entitlementGraceExpiry } from "@/lib/entitlements/grace";
import { invoiceOverdue } from "@/lib/invoices/overdue";
import { dunningRetries } from "@/lib/subscriptions/dunning";
import { invoiceUpcoming, renewals, trialWillEnd } from "@/lib/subscriptions/transitions";
import type { TimeTransition } from "./transitions";

/**
 * Every kind of time-driven transition, in the order they run when several fall due at the same
 * instant (announcements before the change they announce).
 */
export const TIME_TRANSITIONS: readonly TimeTransition[] = [
  trialWillEnd,
  invoiceUpcoming,
  renewals,
  dunningRetries,
  invoiceOverdue,
  checkoutSessionExpiry,
  entitlementGraceExpiry,
];
