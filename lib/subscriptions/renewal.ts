import { eq } from "drizzle-orm";
import { customers, invoices, subscriptions } from "@/db/schema";
import { dueRowLock } from "@/lib/clock/due";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { loadInvoice } from "@/lib/invoices/core";
import { finalizeInvoice } from "@/lib/invoices/service";
import type { InvoiceWithLines } from "@/lib/invoices/serialize";
import { applyPendingChanges } from "@/lib/subscription-changes/pending";
import { dropScheduledChanges } from "@/lib/subscription-changes/drop";
import { billFinalUsage, renewalGraceMs, settleUsageSegments, usageLines } from "@/lib/usage/billing";
import { stopDunning } from "./collection-status";
import { assertStatus, draftInvoice, emit, itemsOf, ofAccount, scheduleOfSubscription, setFields } from "./core";
import { LIVE } from "./rules";
import { collectRenewalInvoice, lockDunningInvoices } from "./dunning";
import { nextPeriodEnd } from "./period";
import type { SubscriptionRow, SubscriptionWithItems } from "./serialize";

export type Renewal = { subscription: SubscriptionWithItems; invoice: InvoiceWithLines | null };

/**
 * Ends the current period at or after `now` (the clock calls it through lib/subscriptions/
 * transitions.ts; tests may call it directly). Trialing, active and past_due subscriptions start the
 * next period (a trial ends: → active) with an invoice of the items, finalized and, with a
 * `default_payment_method`, collected (lib/subscriptions/dunning.ts); paused ones start it without
 * an invoice (nothing is billed while paused); one set to cancel at period end — or whose customer
 * was deleted — is cancelled at the period end instead. One period per call; cancelled or not yet
 * due: 409.
 */
export async function renewSubscription({ ctx, input }: Verb<{ id: string; now: Date }>): Promise<Renewal> {
  return (await renewOnePeriod(ctx, input.id, input.now, { runner: false }))!;
}

/**
 * The renewal in one transaction, with the subscription locked: the draft (`invoice.created`, on
 * the id `invoice.upcoming` reserved), the period advance (`customer.subscription.updated`), the
 * finalization (`invoice.finalized`), and the automatic collection with its outcome. Everything
 * commits together, or nothing does and the renewal stays due. As one of the clock's runners
 * (`runner`), the lock is the due rows' (`dueRowLock`: one another transaction holds is skipped)
 * and a subscription skipped, or no longer due, answers null instead.
 */
export async function renewOnePeriod(ctx: ServiceContext, id: string, now: Date, options: { runner: boolean }): Promise<Renewal | null> {
  return withChangeTransaction(async (tx) => {
    const [locked] = await tx
      .select()
      .from(subscriptions)
      .where(ofAccount(ctx.accountId, id))
      .for("update", options.runner ? dueRowLock() : {});
    if (options.runner && (!locked || locked.status === "cancelled" || locked.currentPeriodEnd.getTime() > now.getTime())) return null;
    if (!locked) throw notFound("subscription", id);
    assertStatus(locked, "renewed", LIVE);
    if (now.getTime() < locked.currentPeriodEnd.getTime()) {
      throw new ServiceError("conflict", `Subscription '${locked.id}' is not due: its period ends at ${locked.currentPeriodEnd.toISOString()}.`);
    }
    // With metered items the period's invoice waits for the late events of the grace window.
    const dueAt = locked.currentPeriodEnd.getTime() + (await renewalGraceMs(tx, locked.id));
    if (now.getTime() < dueAt) {
      if (options.runner) return null;
      throw new ServiceError("conflict", `Subscription '${locked.id}' is not due: its metered usage is billed at ${new Date(dueAt).toISOString()}.`);
    }
    const before = { subscription: locked, items: await itemsOf(tx, locked.id) };
    const at = ctx.now();
    const [customer] = await tx.select({ deletedAt: customers.deletedAt }).from(customers).where(eq(customers.id, locked.customerId));
    if (locked.cancelAtPeriodEnd || customer?.deletedAt) {
      await lockDunningInvoices(tx, ctx, locked.id);
      await stopDunning(tx, ctx, locked.id);
      // The cancellation wins over changes scheduled for this period end: they are dropped, recorded.
      await dropScheduledChanges(tx, ctx, locked.id);
      await setFields(tx, locked.id, {
        status: "cancelled",
        cancelledAt: locked.currentPeriodEnd,
        cancelAtPeriodEnd: false,
        upcomingInvoiceId: null,
        pendingChanges: [],
        updated: at,
      });
      if (!customer?.deletedAt) await billFinalUsage(tx, ctx, locked, locked.currentPeriodEnd);
      const after = { subscription: (await reread(tx, locked.id))!, items: before.items };
      await emit(tx, ctx, "customer.subscription.cancelled", after, before);
      return { subscription: after, invoice: null };
    }
    // The period that just ended: its metered usage, in arrears, beside the next period's licensed items.
    const usage = locked.status === "paused" ? [] : await usageLines(tx, locked, locked.currentPeriodStart, locked.currentPeriodEnd);
    // Changes scheduled for this period end start with the new period: applied before its invoice is
    // drafted, effective at the period end (the period's usage above was counted before them).
    const changed = await applyPendingChanges(tx, ctx, before);
    const schedule = await scheduleOfSubscription(tx, changed);
    // Every end is computed from the anchor (the trial end, else the start), so month clamping never drifts.
    const anchor = locked.trialEnd ?? locked.created;
    const next = { start: locked.currentPeriodEnd, end: nextPeriodEnd(anchor, locked.currentPeriodEnd, schedule.interval, schedule.intervalCount) };
    const ended = { start: locked.currentPeriodStart, end: locked.currentPeriodEnd };
    const draft = locked.status === "paused" ? null : await draftInvoice(ctx, locked, changed.items, next, { tx, id: locked.upcomingInvoiceId, usage, usagePeriod: ended });
    // The usage of metered items changes closed this period is on this invoice (a paused period bills none).
    await settleUsageSegments(tx, locked.id, draft?.invoice.id ?? null, at);
    await setFields(tx, locked.id, {
      status: locked.status === "trialing" ? "active" : locked.status,
      currentPeriodStart: next.start,
      currentPeriodEnd: next.end,
      ...(draft ? { latestInvoiceId: draft.invoice.id } : {}),
      // The reserved id is used now, or (paused: nothing billed) never: the next period announces anew.
      upcomingInvoiceId: null,
      updated: at,
    });
    const renewed = { subscription: (await reread(tx, locked.id))!, items: changed.items };
    await emit(tx, ctx, "customer.subscription.updated", renewed, changed);
    if (!draft) return { subscription: renewed, invoice: null };
    const invoice = await finalizeInvoice({ ctx, tx, input: { id: draft.invoice.id } });
    // A send_invoice renewal was emailed at finalization and waits for the customer's payment.
    if (invoice.invoice.status === "open" && invoice.invoice.collectionMethod === "charge_automatically") {
      await collectRenewalInvoice(tx, ctx, invoice.invoice, renewed.subscription);
    }
    return {
      subscription: { subscription: (await reread(tx, locked.id))!, items: changed.items },
      invoice: await loadInvoice(tx, (await tx.select().from(invoices).where(eq(invoices.id, draft.invoice.id)))[0]!),
    };
  });
}

async function reread(tx: ChangeTransaction, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id));
  return row;
}
