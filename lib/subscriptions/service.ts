import { dropScheduledChanges } from "@/lib/subscription-changes/drop";
import { billFinalUsage } from "@/lib/usage/billing";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { customers, prices, subscriptionItems, subscriptions } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { transitionScheduled } from "@/lib/clock/schedule";
import { finalizeInvoice } from "@/lib/invoices/service";
import { checkSubscriptionPaymentMethod } from "@/lib/payments/processors/registry";
import { one } from "@/lib/rows";
import { lockCustomerToBill } from "@/lib/customers/currency";
import { requireTermsIn } from "@/lib/prices/in-currency";
import { patchRecord } from "@/lib/schemas";
import { stopDunning } from "./collection-status";
import {
  assertStatus,
  change,
  draftInvoice,
  emit,
  itemsOf,
  linkInvoice,
  ofAccount,
  recurringPrice,
  refuseMeteredQuantity,
  scheduleOf,
  setFields,
  type SubscriptionSchedule,
} from "./core";
import { lockDunningInvoices } from "./dunning";
import { SUBSCRIPTION_ACTION_FROM } from "./rules";
import { addIntervals } from "./period";
import type { SubscriptionCancelInput, SubscriptionCreateInput, SubscriptionItemInput, SubscriptionStatus, SubscriptionUpdateInput } from "./schema";
import type { SubscriptionItemRow, SubscriptionWithItems } from "./serialize";
import { firstDueInstant } from "./time";
import { DAY_MS } from "@/lib/time";
import { DEFAULT_DAYS_UNTIL_DUE, type CollectionMethod } from "@/lib/invoices/schema";
import { taxRatesOf } from "@/lib/tax-rates/service";

/* The lifecycle verbs of a subscription: create, read, list, update, pause, resume, cancel. */

type PriceRow = typeof prices.$inferSelect;


/**
 * All items' prices, checked in body order; the first fixes the schedule the others must follow.
 * The currency is the customer's when they have one (every price must bill in it: its own amount
 * or a currency option), else the first price's own.
 */
async function resolveItems(executor: Executor, accountId: string, items: z.output<typeof SubscriptionItemInput>[], customerCurrency: string | null) {
  const resolved: { price: PriceRow; quantity: number; taxRateIds: string[] }[] = [];
  let schedule: SubscriptionSchedule | null = null;
  for (const [index, item] of items.entries()) {
    const field = `items.${index}.price`;
    const price = await recurringPrice(executor, accountId, item.price, field, schedule);
    if (resolved.some((r) => r.price.id === price.id)) {
      throw validationFailed([{ field, message: `Price '${price.id}' appears twice; set its quantity instead.` }]);
    }
    refuseMeteredQuantity(price, item.quantity, `items.${index}.quantity`);
    if (!schedule) {
      schedule = scheduleOf(price, customerCurrency ?? price.currency);
      requireTermsIn(price, schedule.currency, field);
    }
    const rates = await taxRatesOf(executor, accountId, item.tax_rates ?? [], `items.${index}.tax_rates`);
    resolved.push({ price, quantity: item.quantity ?? 1, taxRateIds: rates.map((rate) => rate.id) });
  }
  return { resolved, schedule: schedule! };
}

export async function createSubscription({
  ctx,
  input,
}: Verb<z.output<typeof SubscriptionCreateInput>>): Promise<SubscriptionWithItems> {
  const now = ctx.now();
  let trialEnd: Date | null = null;
  if (input.trial_period_days !== undefined) trialEnd = new Date(now.getTime() + input.trial_period_days * DAY_MS);
  if (input.trial_end !== undefined) {
    trialEnd = new Date(input.trial_end);
    if (trialEnd.getTime() <= now.getTime()) throw validationFailed([{ field: "trial_end", message: "Must be in the future." }]);
    if (trialEnd.getTime() > now.getTime() + 730 * DAY_MS) {
      throw validationFailed([{ field: "trial_end", message: "Must be at most 730 days ahead." }]);
    }
  }
  // Checked before any invoice is drafted, so a refused request leaves nothing behind.
  const db = await getDb();
  const [customer] = await db
    .select({ id: customers.id, currency: customers.currency })
    .from(customers)
    .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)));
  if (!customer) throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
  const checked = await resolveItems(db, ctx.accountId, input.items, customer.currency);
  const defaultPaymentMethod =
    input.default_payment_method === undefined
      ? null
      : await checkSubscriptionPaymentMethod(db, ctx, input.default_payment_method, customer.id, "default_payment_method");

  const id = newId("subscription");
  const collection = {
    collectionMethod: input.collection_method ?? "charge_automatically",
    daysUntilDue: input.collection_method === "send_invoice" ? (input.days_until_due ?? DEFAULT_DAYS_UNTIL_DUE) : null,
  };
  const header = { id, customerId: customer.id, currency: checked.schedule.currency, ...collection };
  const itemRows = checked.resolved.map(({ price, quantity, taxRateIds }) => ({
    id: newId("subscriptionItem"),
    subscriptionId: id,
    priceId: price.id,
    quantity,
    taxRateIds,
    created: now,
    updated: now,
  }));
  // Without a trial the first period is billed now: the draft comes first (invoice.created), then
  // the subscription pointing at it (customer.subscription.created), then its finalization.
  // Only metered items: nothing is billed in advance; the first invoice is the first period's usage.
  const allMetered = checked.resolved.every((r) => r.price.usageType === "metered");
  const firstPeriod = { start: now, end: addIntervals(now, checked.schedule.interval, checked.schedule.intervalCount) };
  const draft = trialEnd || allMetered ? null : await draftInvoice(ctx, header, itemRows as SubscriptionItemRow[], firstPeriod);

  const created = await withChangeTransaction(async (tx) => {
    // Locked (a deletion or a currency change waits); a trialing or usage-only first subscription fixes the customer's currency.
    const locked = await lockCustomerToBill(tx, ctx, customer.id, checked.schedule.currency);
    if (!locked) throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
    if (locked.currency !== null && locked.currency !== checked.schedule.currency) {
      throw new ServiceError("conflict", `Customer '${customer.id}' is now billed in ${locked.currency}; create the subscription again.`);
    }
    const subscription = one(await tx
      .insert(subscriptions)
      .values({
        ...header,
        accountId: ctx.accountId,
        status: trialEnd ? "trialing" : "active",
        currentPeriodStart: now,
        currentPeriodEnd: trialEnd ?? firstPeriod.end,
        trialEnd,
        latestInvoiceId: draft?.invoice.id ?? null,
        defaultPaymentMethod,
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning());
    const items = await tx.insert(subscriptionItems).values(itemRows).returning();
    if (draft) await linkInvoice(tx, draft.invoice.id, id);
    const result = { subscription: subscription, items };
    await emit(tx, ctx, "customer.subscription.created", result, null);
    return result;
  });
  if (draft) await finalizeInvoice({ ctx, input: { id: draft.invoice.id } });
  // Its first time-driven transition (trial_will_end, invoice.upcoming or the period end) comes no
  // later than this: wake the clock's driver for it.
  await transitionScheduled(ctx, firstDueInstant(created.subscription));
  return created;
}

export async function getSubscription({ ctx, input }: Verb<{ id: string }>): Promise<SubscriptionWithItems> {
  const db = await getDb();
  const [subscription] = await db.select().from(subscriptions).where(ofAccount(ctx.accountId, input.id));
  if (!subscription) throw notFound("subscription", input.id);
  return { subscription, items: await itemsOf(db, subscription.id) };
}

export type SubscriptionFilters = { customer?: string; status?: SubscriptionStatus };

export async function listSubscriptions({
  ctx,
  input,
}: Verb<Page & SubscriptionFilters>): Promise<{ items: SubscriptionWithItems[] } & PageInfo> {
  const db = await getDb();
  const list = listQuery("subscriptions", ctx.accountId, { status: input.status, customer: input.customer });
  const { rows, ...info } = await pageOf(list.table, list.where, input, list.options);
  const items =
    rows.length === 0
      ? []
      : await db
          .select()
          .from(subscriptionItems)
          .where(and(inArray(subscriptionItems.subscriptionId, rows.map((row) => row.id)), isNull(subscriptionItems.deletedAt)))
          .orderBy(asc(subscriptionItems.created), asc(subscriptionItems.id));
  return {
    items: rows.map((subscription) => ({ subscription, items: items.filter((item) => item.subscriptionId === subscription.id) })),
    ...info,
  };
}

/**
 * The collection method after an update (Stripe's rules): `send_invoice` keeps its days until due
 * unless given (default 30); `charge_automatically` has none; `days_until_due` alone only on a
 * `send_invoice` subscription (422 otherwise).
 */
function collectionAfter(
  before: { collectionMethod: CollectionMethod; daysUntilDue: number | null },
  changes: { collection_method?: CollectionMethod; days_until_due?: number },
): { collectionMethod: CollectionMethod; daysUntilDue: number | null } {
  const method = changes.collection_method ?? before.collectionMethod;
  if (method === "charge_automatically") {
    if (changes.days_until_due !== undefined) {
      throw validationFailed([{ field: "days_until_due", message: "Only with collection_method: send_invoice." }]);
    }
    return { collectionMethod: method, daysUntilDue: null };
  }
  return { collectionMethod: method, daysUntilDue: changes.days_until_due ?? before.daysUntilDue ?? DEFAULT_DAYS_UNTIL_DUE };
}

export async function updateSubscription({
  ctx,
  input,
}: Verb<{ id: string; changes: z.output<typeof SubscriptionUpdateInput> }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.updated", async (tx, { subscription: before }) => {
    assertStatus(before, "updated", SUBSCRIPTION_ACTION_FROM.update);
    const method = input.changes.default_payment_method;
    const next = {
      metadata: patchRecord(before.metadata, input.changes.metadata),
      cancelAtPeriodEnd: input.changes.cancel_at_period_end ?? before.cancelAtPeriodEnd,
      defaultPaymentMethod:
        method === undefined
          ? before.defaultPaymentMethod
          : method === null
            ? null
            : await checkSubscriptionPaymentMethod(tx, ctx, method, before.customerId, "default_payment_method"),
      ...collectionAfter(before, input.changes),
    };
    if (
      next.cancelAtPeriodEnd === before.cancelAtPeriodEnd &&
      next.defaultPaymentMethod === before.defaultPaymentMethod &&
      next.collectionMethod === before.collectionMethod &&
      next.daysUntilDue === before.daysUntilDue &&
      JSON.stringify(next.metadata) === JSON.stringify(before.metadata)
    ) {
      return false;
    }
    await setFields(tx, before.id, next);
    return true;
  });
}

export async function pauseSubscription({ ctx, input }: Verb<{ id: string }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.paused", async (tx, { subscription }, now) => {
    assertStatus(subscription, "paused", SUBSCRIPTION_ACTION_FROM.pause);
    await setFields(tx, subscription.id, { status: "paused", pausedAt: now });
    return true;
  });
}

export async function resumeSubscription({ ctx, input }: Verb<{ id: string }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.resumed", async (tx, { subscription }) => {
    assertStatus(subscription, "resumed", SUBSCRIPTION_ACTION_FROM.resume);
    await setFields(tx, subscription.id, { status: "active", pausedAt: null });
    return true;
  });
}

export async function cancelSubscription({
  ctx,
  input,
}: Verb<{ id: string; options: z.output<typeof SubscriptionCancelInput> }>): Promise<SubscriptionWithItems> {
  if (input.options.at_period_end === true || input.options.effective === "period_end") {
    return change(ctx, input.id, "customer.subscription.updated", async (tx, { subscription }) => {
      assertStatus(subscription, "cancelled", SUBSCRIPTION_ACTION_FROM.cancel);
      if (subscription.cancelAtPeriodEnd) return false;
      await setFields(tx, subscription.id, { cancelAtPeriodEnd: true });
      return true;
    });
  }
  return change(ctx, input.id, "customer.subscription.cancelled", async (tx, { subscription }, now) => {
    assertStatus(subscription, "cancelled", SUBSCRIPTION_ACTION_FROM.cancel);
    // Cancelling ends dunning: the open invoices stay open for the merchant, with no more retries.
    await lockDunningInvoices(tx, ctx, subscription.id);
    await stopDunning(tx, ctx, subscription.id);
    // Changes scheduled for a period end that will not come are dropped, each recorded.
    await dropScheduledChanges(tx, ctx, subscription.id);
    await setFields(tx, subscription.id, { status: "cancelled", cancelledAt: now, cancelAtPeriodEnd: false, upcomingInvoiceId: null, pendingChanges: [] });
    // The usage so far of its metered items goes on a final invoice.
    await billFinalUsage(tx, ctx, subscription, now);
    return true;
  });
}
