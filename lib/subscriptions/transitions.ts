import { and, asc, eq, inArray, isNotNull, isNull, lte, min, ne, not, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { accounts, customers, subscriptionItems, subscriptions } from "@/db/schema";
import { accountNow, accountsWhere, DUE_BATCH, dueRowLock, runEach } from "@/lib/clock/due";
import type { TimeTransition } from "@/lib/clock/transitions";
import type { ServiceContext } from "@/lib/context";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { serializeInvoice } from "@/lib/invoices/serialize";
import { serializeSubscription } from "./serialize";
import { renewalDueAt } from "@/lib/usage/billing";
import { renewOnePeriod } from "./renewal";
import { upcomingInvoices } from "./upcoming";
import { TRIAL_WILL_END_NOTICE_MS, UPCOMING_INVOICE_LEAD_MS } from "./time";

/*
 * The subscription kinds of time-driven transitions (lib/clock). Each is derived from the
 * subscription's columns (no timer rows): a due condition on them, checked again under the row
 * lock before anything changes.
 */

type Instant = Date | SQL;

/** `instant` moved `ms` later, in SQL (for "due `ms` before the column's time"). */
const later = (instant: Instant, ms: number): SQL =>
  instant instanceof Date ? sql`${new Date(instant.getTime() + ms).toISOString()}::timestamptz` : sql`(${instant} + ${ms} * interval '1 millisecond')`;

async function itemsOf(executor: Executor, subscriptionId: string) {
  return executor
    .select()
    .from(subscriptionItems)
    .where(and(eq(subscriptionItems.subscriptionId, subscriptionId), isNull(subscriptionItems.deletedAt)))
    .orderBy(asc(subscriptionItems.created), asc(subscriptionItems.id));
}

/** A subscription kind: due rows by `due(now)`, the earliest by `earliest`, each run by `runOne`. */
function subscriptionKind(kind: {
  name: string;
  due: (now: Instant) => SQL | undefined;
  live: SQL | undefined;
  earliest: SQL<Date | null>;
  runOne: (ctx: ServiceContext, id: string) => Promise<boolean>;
}): TimeTransition {
  return {
    name: kind.name,
    async nextDue(executor, accountId) {
      const [row] = await executor
        .select({ at: kind.earliest })
        .from(subscriptions)
        .where(and(eq(subscriptions.accountId, accountId), kind.live));
      return row?.at ?? null;
    },
    async findDue(executor, ctx) {
      const due = await executor
        .select({ id: subscriptions.id, customer: subscriptions.customerId })
        .from(subscriptions)
        .where(and(eq(subscriptions.accountId, ctx.accountId), kind.due(ctx.now())))
        .orderBy(asc(subscriptions.id))
        .limit(DUE_BATCH);
      // One lane per customer: a customer's subscriptions share its balance, credit grants, discount
      // and entitlements, so they take turns; different customers' run side by side (lib/clock/due.ts).
      return () =>
        runEach(
          due.map((row) => ({ id: row.id, lane: row.customer })),
          (id) => kind.runOne(ctx, id),
        );
    },
    async dueAccounts(executor, realNow) {
      return accountsWhere(
        executor,
        executor
          .select({ id: subscriptions.id })
          .from(subscriptions)
          .where(and(eq(subscriptions.accountId, accounts.id), kind.due(accountNow(realNow)))),
      );
    },
  };
}

// ——— customer.subscription.trial_will_end ———

const trialNotPending = and(eq(subscriptions.status, "trialing"), isNotNull(subscriptions.trialEnd), isNull(subscriptions.trialWillEndNotifiedAt));
const trialWillEndDue = (now: Instant) => and(trialNotPending, lte(subscriptions.trialEnd, later(now, TRIAL_WILL_END_NOTICE_MS)));

/**
 * `customer.subscription.trial_will_end`, once per trial (`trial_will_end_notified_at`), data = the
 * subscription as it stands, previous_data null: a notice, nothing of the object changes.
 */
async function notifyTrialWillEnd(ctx: ServiceContext, id: string): Promise<boolean> {
  return withChangeTransaction(async (tx) => {
    const now = ctx.now();
    const [row] = await tx
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.id, id), trialWillEndDue(now)))
      .for("update", dueRowLock());
    if (!row) return false;
    await tx.update(subscriptions).set({ trialWillEndNotifiedAt: now }).where(eq(subscriptions.id, id));
    await emitEvent(tx, ctx, {
      type: "customer.subscription.trial_will_end",
      aggregateId: id,
      data: serializeSubscription({ subscription: row, items: await itemsOf(tx, id) }, ctx.livemode),
      previousData: null,
    });
    return true;
  });
}

export const trialWillEnd = subscriptionKind({
  name: "trial_will_end",
  due: trialWillEndDue,
  live: trialNotPending,
  // A trial shorter than the notice is due from its creation, never before.
  earliest: min(sql`greatest(${subscriptions.trialEnd} - ${TRIAL_WILL_END_NOTICE_MS} * interval '1 millisecond', ${subscriptions.created})`).mapWith(
    subscriptions.trialEnd,
  ) as SQL<Date | null>,
  runOne: notifyTrialWillEnd,
});

// ——— invoice.upcoming ———

/**
 * Subscriptions whose next renewal will bill (not paused, not cancelling at period end, customer
 * not deleted) and has not been announced yet.
 */
const upcomingPending = and(
  inArray(subscriptions.status, ["trialing", "active", "past_due"]),
  not(subscriptions.cancelAtPeriodEnd),
  isNull(subscriptions.upcomingInvoiceId),
  sql`exists (select 1 from ${customers} where ${customers.id} = ${subscriptions.customerId} and ${customers.deletedAt} is null)`,
);
const upcomingDue = (now: Instant) => and(upcomingPending, lte(subscriptions.currentPeriodEnd, later(now, UPCOMING_INVOICE_LEAD_MS)));

/**
 * `invoice.upcoming` before a renewal that will bill: the id the renewal invoice will carry is
 * reserved (`subscriptions.upcoming_invoice_id`) and the event is emitted on it, so that invoice's
 * timeline starts with its announcement. data = the preview (lib/subscriptions/upcoming.ts: status
 * draft, as the renewal would finalize it: lines, usage so far, discount, taxes, balance), previous_data null.
 */
async function announceUpcoming(ctx: ServiceContext, id: string): Promise<boolean> {
  return withChangeTransaction(async (tx) => {
    const now = ctx.now();
    const [row] = await tx
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.id, id), upcomingDue(now)))
      .for("update", dueRowLock());
    if (!row) return false;
    const invoiceId = newId("invoice");
    // The renewal as it would be finalized (the pending changes applied, usage so far, balance), on the id reserved.
    const { renewal } = await upcomingInvoices(tx, ctx, { subscription: row, items: await itemsOf(tx, id) }, { id: invoiceId });
    const preview = { invoice: renewal.invoice, lines: renewal.lines, paymentIntent: null };
    await tx.update(subscriptions).set({ upcomingInvoiceId: invoiceId }).where(eq(subscriptions.id, id));
    await emitEvent(tx, ctx, {
      type: "invoice.upcoming",
      aggregateId: invoiceId,
      data: serializeInvoice(preview, ctx.livemode),
      previousData: null,
    });
    return true;
  });
}

export const invoiceUpcoming = subscriptionKind({
  name: "invoice_upcoming",
  due: upcomingDue,
  live: upcomingPending,
  // A period shorter than the lead is announced as it starts, never before.
  earliest: min(
    sql`greatest(${subscriptions.currentPeriodEnd} - ${UPCOMING_INVOICE_LEAD_MS} * interval '1 millisecond', ${subscriptions.currentPeriodStart})`,
  ).mapWith(subscriptions.currentPeriodEnd) as SQL<Date | null>,
  runOne: announceUpcoming,
});

// ——— renewals (period end, trial end) ———

const renewable = ne(subscriptions.status, "cancelled");

export const renewals = subscriptionKind({
  name: "renewal",
  // Metered subscriptions fall due a grace window after the period end (lib/usage/billing.ts).
  due: (now) => and(renewable, lte(subscriptions.currentPeriodEnd, now), sql`${renewalDueAt} <= ${later(now, 0)}`),
  live: renewable,
  earliest: min(renewalDueAt).mapWith(subscriptions.currentPeriodEnd) as SQL<Date | null>,
  // One period per call: a subscription several periods behind stays due, and the runner loops.
  runOne: async (ctx, id) => (await renewOnePeriod(ctx, id, ctx.now(), { runner: true })) !== null,
});
