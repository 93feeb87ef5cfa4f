import { and, eq, inArray, isNull } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, checkoutSessions, customers, prices } from "@/db/schema";
import { onSessionPublishableKey } from "@/lib/payments/on-session";
import { accountClock } from "@/lib/time";
import { successRedirectUrl } from "./serialize";

export type HostedLine = {
  description: string;
  quantity: number;
  unitAmountAtom: number;
  amountAtom: number;
  /** "month", "3 months"… for a subscription's line; null for one-time prices. */
  interval: string | null;
};

/** What the hosted page shows: plain data, no database types (the page cannot import db/). */
export type HostedCheckout = {
  id: string;
  merchantName: string;
  livemode: boolean;
  mode: "payment" | "subscription";
  /** `expired` also when the expiry time passed and the clock has not yet come round to it. */
  status: "open" | "complete" | "expired";
  currency: string;
  lines: HostedLine[];
  amountTotalAtom: number;
  trialPeriodDays: number | null;
  /** The email the session is for (its customer's, or customer_email): shown locked. */
  lockedEmail: string | null;
  cancelUrl: string | null;
  /** Once complete: where the customer goes next. */
  successUrl: string;
  expiresAt: string;
  /**
   * The publishable key of the account's Stripe when the page collects the card with Stripe.js
   * (an account connected to Stripe); null: the sandbox methods (sandbox accounts) or no payment at all.
   */
  publishableKey: string | null;
  /**
   * How Stripe.js collects the card: `payment` (payment mode, or a subscription's first invoice),
   * `setup` (a subscription with nothing due now: a trial; Stripe's SetupIntent).
   */
  collect: "payment" | "setup";
  /** Whether the payment also saves the card for off-session charges (a subscription's always does). */
  savesCard: boolean;
};

function intervalLabel(interval: string | null, count: number | null): string | null {
  if (interval === null) return null;
  return count && count > 1 ? `${count} ${interval}s` : interval;
}

/** The session behind a hosted checkout URL, or null when there is none (unknown or deleted). */
export async function getHostedCheckout(id: string): Promise<HostedCheckout | null> {
  const db = await getDb();
  const [row] = await db
    .select({ session: checkoutSessions, merchantName: accounts.name, livemode: accounts.livemode, clockOffsetMs: accounts.clockOffsetMs })
    .from(checkoutSessions)
    .innerJoin(accounts, eq(accounts.id, checkoutSessions.accountId))
    .where(and(eq(checkoutSessions.id, id), isNull(checkoutSessions.deletedAt)));
  if (!row) return null;
  const { session } = row;
  const schedules = await db
    .select({ id: prices.id, interval: prices.recurringInterval, count: prices.recurringIntervalCount })
    .from(prices)
    .where(inArray(prices.id, session.lineItems.map((line) => line.price)));
  let lockedEmail = session.customerEmail;
  if (session.customerId !== null && lockedEmail === null) {
    const [customer] = await db.select({ email: customers.email }).from(customers).where(eq(customers.id, session.customerId));
    lockedEmail = customer?.email ?? null;
  }
  const now = accountClock(row.clockOffsetMs)();
  const pastExpiry = session.status === "open" && session.expiresAt.getTime() <= now.getTime();
  return {
    id: session.id,
    merchantName: row.merchantName,
    livemode: row.livemode,
    mode: session.mode,
    status: pastExpiry ? "expired" : session.status,
    currency: session.currency,
    lines: session.lineItems.map((line) => {
      const schedule = schedules.find((s) => s.id === line.price);
      return {
        description: line.description ?? line.price,
        quantity: line.quantity,
        unitAmountAtom: line.unit_amount_atom,
        amountAtom: line.amount_atom,
        interval: intervalLabel(schedule?.interval ?? null, schedule?.count ?? null),
      };
    }),
    amountTotalAtom: session.amountTotalAtom,
    trialPeriodDays: session.trialPeriodDays,
    lockedEmail,
    cancelUrl: session.cancelUrl,
    successUrl: successRedirectUrl(session.successUrl, session.id),
    expiresAt: session.expiresAt.toISOString(),
    publishableKey: await onSessionPublishableKey(session.accountId),
    collect: session.mode === "payment" || (session.trialPeriodDays === null && session.amountTotalAtom > 0) ? "payment" : "setup",
    savesCard: session.mode === "subscription" || session.setupFutureUsage === "off_session",
  };
}
