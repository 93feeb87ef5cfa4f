import type { SubscriptionRow } from "./serialize";
import { DAY_MS } from "@/lib/time";


/**
 * `customer.subscription.trial_will_end` comes this long before the trial ends (as in Stripe), once
 * per trial; a trial shorter than this gets it at once (on the clock's first run after creation).
 */
export const TRIAL_WILL_END_NOTICE_MS = 3 * DAY_MS;

/**
 * `invoice.upcoming` comes this long before a renewal that will bill (Stripe's default is
 * configurable, often 3 to 7 days); a period shorter than this gets it as soon as it starts.
 */
export const UPCOMING_INVOICE_LEAD_MS = 3 * DAY_MS;

/** Whether the renewal at the end of the current period makes an invoice (what invoice.upcoming announces). */
export function renewalBills(subscription: Pick<SubscriptionRow, "status" | "cancelAtPeriodEnd">): boolean {
  return ["trialing", "active", "past_due"].includes(subscription.status) && !subscription.cancelAtPeriodEnd;
}

/** The earliest time-driven transition of a subscription just created (it never precedes its creation). */
export function firstDueInstant(subscription: SubscriptionRow): Date {
  const end = subscription.currentPeriodEnd.getTime();
  const notices = [end - UPCOMING_INVOICE_LEAD_MS];
  if (subscription.trialEnd) notices.push(subscription.trialEnd.getTime() - TRIAL_WILL_END_NOTICE_MS);
  return new Date(Math.max(subscription.created.getTime(), Math.min(end, ...notices)));
}
