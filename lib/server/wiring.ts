import { alertEvaluation } from "@/lib/alerts/evaluate";
import { registerMintCheck } from "@/lib/api-tokens/mint-check";
import { checkoutSessionExpiry } from "@/lib/checkout/expiry";
import { checkoutAfterProcessorSettled, completeCheckoutFromPayment } from "@/lib/checkout/on-session";
import { creditGrantExpiry } from "@/lib/credit-grants/expiry";
import { registerTimeTransitions } from "@/lib/clock/registry";
import { runAccountDueTransitions } from "@/lib/clock/service";
import { clockTicker } from "@/lib/clock/ticker";
import { emailDriver } from "@/lib/email-outbox/driver";
import { sendDueEmails } from "@/lib/emails/send";
import { entitlementGraceExpiry } from "@/lib/entitlements/grace";
import { invoiceOverdue } from "@/lib/invoices/overdue";
import { applyPaymentIntentOutcome } from "@/lib/invoices/payment-hooks";
import { registerCollectionFailure, registerSubscriptionSettlement } from "@/lib/invoices/settled";
import { registerJobWork } from "@/lib/jobs/work";
import { applyPendingProcessorEvents } from "@/lib/payment-processor/events";
import { registerInvoiceOutcome } from "@/lib/payments/invoice-outcome";
import { paymentReconciliation } from "@/lib/payments/reconcile";
import { registerAfterProcessorSettled, registerIntentSucceeded } from "@/lib/payments/succeeded-hooks";
import { refundReconciliation } from "@/lib/refunds/reconcile";
import { settleSubscriptionOf } from "@/lib/subscriptions/collection-status";
import { automaticCollectionFailed, dunningRetries } from "@/lib/subscriptions/dunning";
import { invoiceUpcoming, renewals, trialWillEnd } from "@/lib/subscriptions/transitions";
import { attemptDue } from "@/lib/webhooks/deliver-due";
import { deliveryDriver } from "@/lib/webhooks/driver";
import { assertMayMint } from "./token-minting";

/**
 * Start-up: hands the lower layers the work of the upper ones (docs/ARCHITECTURE.md, "Layers"),
 * so that no arrow points up. The clock runs the domains' time-driven transitions, the job
 * providers wake webhook delivery and the clock, token creation asks what a role may mint
 * (which reads every operation), a payment intent tells its invoice how it ended (invoices
 * collect through payments), and a settled invoice tells its subscription (subscriptions make
 * invoices), without importing them. Every entry point that
 * runs domain code calls it once (instrumentation-node.ts, the API's routes, the Inngest
 * functions, the cron routes, the scripts that change data); calling it again is harmless.
 */
export function wire(): void {
  // The order they run in when several fall due at the same instant (announcements before the
  // change they announce).
  registerTimeTransitions([
    trialWillEnd,
    invoiceUpcoming,
    renewals,
    dunningRetries,
    invoiceOverdue,
    checkoutSessionExpiry,
    creditGrantExpiry,
    entitlementGraceExpiry,
    paymentReconciliation,
    refundReconciliation,
    alertEvaluation,
  ]);
  registerJobWork({
    announceDeliveries: () => deliveryDriver().announce(),
    wakeClock: () => clockTicker().wake(),
    wakeEmails: () => emailDriver().wake(),
    attemptDeliveries: (deliveryIds) => attemptDue(deliveryIds),
    runAccountDueTransitions,
    sendDueEmails: (limit) => sendDueEmails(limit),
    applyProcessorEvents: (accountId) => applyPendingProcessorEvents(accountId),
  });
  registerMintCheck(assertMayMint);
  registerInvoiceOutcome(applyPaymentIntentOutcome);
  // A checkout session paid in the browser completes when its intent succeeds at the processor.
  registerIntentSucceeded("checkout", completeCheckoutFromPayment);
  // A subscription checkout's payment or card setup that succeeded starts its subscription, after the intent's transaction.
  registerAfterProcessorSettled("checkout", checkoutAfterProcessorSettled);
  registerSubscriptionSettlement(settleSubscriptionOf);
  registerCollectionFailure(automaticCollectionFailed);
}
