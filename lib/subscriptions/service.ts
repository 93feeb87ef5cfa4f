import { and, asc, eq, inArray, isNull, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor, type Transaction } from "@/db/client";
import { pageOf } from "@/db/page";
import { customers, invoices, prices, subscriptionItems, subscriptions } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import type { EventType } from "@/lib/events/catalogue";
import { inChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import type { InvoiceWithLines } from "@/lib/invoices/serialize";
import { transitionScheduled } from "@/lib/clock/schedule";
import { loadInvoice } from "@/lib/invoices/core";
import { createInvoice, finalizeInvoice } from "@/lib/invoices/service";
import { checkSandboxPaymentMethod } from "@/lib/payments/sandbox";
import { patchRecord } from "@/lib/schemas";
import { stopDunning } from "./collection-status";
import { collectRenewalInvoice, lockDunningInvoices } from "./dunning";
import { addIntervals, nextPeriodEnd, type Interval } from "./period";
import type {
  SubscriptionCancelInput,
  SubscriptionCreateInput,
  SubscriptionItemInput,
  SubscriptionStatus,
  SubscriptionUpdateInput,
} from "./schema";
import { serializeSubscription, type SubscriptionItemRow, type SubscriptionRow, type SubscriptionWithItems } from "./serialize";
import { firstDueInstant } from "./time";

type PriceRow = typeof prices.$inferSelect;
type Schedule = { currency: string; interval: Interval; intervalCount: number };

const DAY_MS = 86_400_000;
const ofAccount = (accountId: string, id: string) => and(eq(subscriptions.accountId, accountId), eq(subscriptions.id, id));

async function itemsOf(executor: Executor, subscriptionId: string): Promise<SubscriptionItemRow[]> {
  return executor
    .select()
    .from(subscriptionItems)
    .where(and(eq(subscriptionItems.subscriptionId, subscriptionId), isNull(subscriptionItems.deletedAt)))
    .orderBy(asc(subscriptionItems.created), asc(subscriptionItems.id));
}

async function lockSubscription(tx: Transaction, accountId: string, id: string): Promise<SubscriptionWithItems> {
  const [subscription] = await tx.select().from(subscriptions).where(ofAccount(accountId, id)).for("update");
  if (!subscription) throw notFound("subscription", id);
  return { subscription, items: await itemsOf(tx, id) };
}

/**
 * A price a subscription may bill: of the account, not deleted, active, recurring, and on the
 * subscription's schedule (same currency, interval and interval count). Anything else is a 422
 * naming the body field, as for an invoice line's price.
 */
async function recurringPrice(executor: Executor, accountId: string, id: string, field: string, schedule: Schedule | null): Promise<PriceRow> {
  const [price] = await executor
    .select()
    .from(prices)
    .where(and(eq(prices.accountId, accountId), eq(prices.id, id), isNull(prices.deletedAt)));
  const refuse = (message: string) => validationFailed([{ field, message }], message);
  if (!price) throw refuse(`No such price: '${id}'.`);
  if (!price.active) throw refuse(`Price '${price.id}' is archived.`);
  if (price.type !== "recurring" || !price.recurringInterval || !price.recurringIntervalCount) {
    throw refuse(`Price '${price.id}' is one_time; a subscription needs recurring prices.`);
  }
  if (schedule) {
    if (price.currency !== schedule.currency) {
      throw refuse(`Price '${price.id}' is in ${price.currency}; the subscription is in ${schedule.currency}.`);
    }
    if (price.recurringInterval !== schedule.interval || price.recurringIntervalCount !== schedule.intervalCount) {
      throw refuse(
        `Price '${price.id}' bills every ${price.recurringIntervalCount} ${price.recurringInterval}; the subscription bills every ${schedule.intervalCount} ${schedule.interval}.`,
      );
    }
  }
  return price;
}

const scheduleOf = (price: PriceRow): Schedule => ({
  currency: price.currency,
  // recurringPrice checked both are set.
  interval: price.recurringInterval!,
  intervalCount: price.recurringIntervalCount!,
});

/** All items' prices, checked in body order; the first fixes the schedule the others must follow. */
async function resolveItems(executor: Executor, accountId: string, items: z.output<typeof SubscriptionItemInput>[]) {
  const resolved: { price: PriceRow; quantity: number }[] = [];
  let schedule: Schedule | null = null;
  for (const [index, item] of items.entries()) {
    const field = `items.${index}.price`;
    const price = await recurringPrice(executor, accountId, item.price, field, schedule);
    if (resolved.some((r) => r.price.id === price.id)) {
      throw validationFailed([{ field, message: `Price '${price.id}' appears twice; set its quantity instead.` }]);
    }
    schedule ??= scheduleOf(price);
    resolved.push({ price, quantity: item.quantity ?? 1 });
  }
  return { resolved, schedule: schedule! };
}

/**
 * The subscription's schedule, from its first item's price (all items share it). Prices are never
 * changed in their schedule, so an archived or deleted one still tells it.
 */
async function scheduleOfSubscription(executor: Executor, items: SubscriptionItemRow[]): Promise<Schedule> {
  const [price] = await executor.select().from(prices).where(eq(prices.id, items[0]!.priceId));
  return scheduleOf(price!);
}

async function emit(
  tx: Transaction,
  ctx: ServiceContext,
  type: EventType,
  after: SubscriptionWithItems,
  before: SubscriptionWithItems | null,
): Promise<void> {
  await emitEvent(tx, ctx, {
    type,
    aggregateId: after.subscription.id,
    data: serializeSubscription(after, ctx.livemode),
    previousData: before ? serializeSubscription(before, ctx.livemode) : null,
  });
}

/**
 * The invoice lines of the items. An item whose price was archived or deleted since keeps billing
 * what the customer agreed to, as a custom line naming the price (invoice lines accept only active
 * prices).
 */
export async function renewalLines(executor: Executor, items: SubscriptionItemRow[]) {
  const rows = await executor.select().from(prices).where(inArray(prices.id, items.map((item) => item.priceId)));
  return items.map((item) => {
    const price = rows.find((row) => row.id === item.priceId)!;
    return price.active && price.deletedAt === null
      ? { price: price.id, quantity: item.quantity }
      : { unit_amount_atom: price.unitAmountAtom, description: `Price ${price.id} (no longer offered)`, quantity: item.quantity };
  });
}

/**
 * A draft invoice of the items, through the invoices service: in its own transaction (creation),
 * or in the caller's `tx`, then carrying the subscription and the id `invoice.upcoming` reserved.
 */
async function draftInvoice(
  ctx: ServiceContext,
  subscription: Pick<SubscriptionRow, "id" | "customerId" | "currency">,
  items: SubscriptionItemRow[],
  within?: { tx: Transaction; id: string | null },
) {
  const lines = await renewalLines(within?.tx ?? (await getDb()), items);
  const input = { customer: subscription.customerId, currency: subscription.currency, description: `Subscription ${subscription.id}`, lines };
  if (!within) return createInvoice({ ctx, input });
  return createInvoice({ ctx, tx: within.tx, input: { ...input, id: within.id ?? undefined, subscription: subscription.id } });
}

/** Links a draft the subscription produced to it (lib/invoices creates invoices without subscription). */
async function linkInvoice(tx: Transaction, invoiceId: string, subscriptionId: string): Promise<void> {
  await tx.update(invoices).set({ subscriptionId }).where(and(eq(invoices.id, invoiceId), eq(invoices.status, "draft")));
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
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)));
  if (!customer) throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
  const checked = await resolveItems(db, ctx.accountId, input.items);
  const defaultPaymentMethod =
    input.default_payment_method === undefined ? null : checkSandboxPaymentMethod(ctx.livemode, input.default_payment_method, "default_payment_method");

  const id = newId("subscription");
  const header = { id, customerId: customer.id, currency: checked.schedule.currency };
  const itemRows = checked.resolved.map(({ price, quantity }) => ({
    id: newId("subscriptionItem"),
    subscriptionId: id,
    priceId: price.id,
    quantity,
    created: now,
    updated: now,
  }));
  // Without a trial the first period is billed now: the draft comes first (invoice.created), then
  // the subscription pointing at it (customer.subscription.created), then its finalization.
  const draft = trialEnd ? null : await draftInvoice(ctx, header, itemRows as SubscriptionItemRow[]);

  const created = await inChangeTransaction(async (tx) => {
    const [locked] = await tx
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, customer.id), isNull(customers.deletedAt)))
      .for("share");
    if (!locked) throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
    const { schedule } = checked;
    const [subscription] = await tx
      .insert(subscriptions)
      .values({
        ...header,
        accountId: ctx.accountId,
        status: trialEnd ? "trialing" : "active",
        currentPeriodStart: now,
        currentPeriodEnd: trialEnd ?? addIntervals(now, schedule.interval, schedule.intervalCount),
        trialEnd,
        latestInvoiceId: draft?.invoice.id ?? null,
        defaultPaymentMethod,
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning();
    const items = await tx.insert(subscriptionItems).values(itemRows).returning();
    if (draft) await linkInvoice(tx, draft.invoice.id, id);
    const result = { subscription: subscription!, items };
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
  const conditions: (SQL | undefined)[] = [eq(subscriptions.accountId, ctx.accountId)];
  if (input.customer !== undefined) conditions.push(eq(subscriptions.customerId, input.customer));
  if (input.status !== undefined) conditions.push(eq(subscriptions.status, input.status));
  const where = and(...conditions);
  const { rows, ...info } = await pageOf(subscriptions, where, input);
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

function assertStatus(subscription: SubscriptionRow, action: string, allowed: readonly SubscriptionStatus[]): void {
  if (!allowed.includes(subscription.status)) {
    throw new ServiceError(
      "conflict",
      `Subscription '${subscription.id}' is ${subscription.status}; only ${allowed.join(" or ")} subscriptions can be ${action}.`,
    );
  }
}

const LIVE: readonly SubscriptionStatus[] = ["trialing", "active", "past_due", "paused"];

/**
 * One locked change: `change` writes and returns nothing, or returns false when nothing changed
 * (no event then). The state after is read back, so the event records exactly what is stored.
 */
async function change(
  ctx: ServiceContext,
  id: string,
  type: EventType,
  apply: (tx: Transaction, before: SubscriptionWithItems, now: Date) => Promise<boolean>,
): Promise<SubscriptionWithItems> {
  return inChangeTransaction(async (tx) => {
    const before = await lockSubscription(tx, ctx.accountId, id);
    const now = ctx.now();
    if (!(await apply(tx, before, now))) return before;
    const [subscription] = await tx.update(subscriptions).set({ updated: now }).where(eq(subscriptions.id, id)).returning();
    const after = { subscription: subscription!, items: await itemsOf(tx, id) };
    await emit(tx, ctx, type, after, before);
    return after;
  });
}

const setFields = (tx: Transaction, id: string, fields: Partial<typeof subscriptions.$inferInsert>) =>
  tx.update(subscriptions).set(fields).where(eq(subscriptions.id, id));

export async function updateSubscription({
  ctx,
  input,
}: Verb<{ id: string; changes: z.output<typeof SubscriptionUpdateInput> }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.updated", async (tx, { subscription: before }) => {
    assertStatus(before, "updated", LIVE);
    const method = input.changes.default_payment_method;
    const next = {
      metadata: patchRecord(before.metadata, input.changes.metadata),
      cancelAtPeriodEnd: input.changes.cancel_at_period_end ?? before.cancelAtPeriodEnd,
      defaultPaymentMethod:
        method === undefined ? before.defaultPaymentMethod : method === null ? null : checkSandboxPaymentMethod(ctx.livemode, method, "default_payment_method"),
    };
    if (
      next.cancelAtPeriodEnd === before.cancelAtPeriodEnd &&
      next.defaultPaymentMethod === before.defaultPaymentMethod &&
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
    assertStatus(subscription, "paused", ["active"]);
    await setFields(tx, subscription.id, { status: "paused", pausedAt: now });
    return true;
  });
}

export async function resumeSubscription({ ctx, input }: Verb<{ id: string }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.resumed", async (tx, { subscription }) => {
    assertStatus(subscription, "resumed", ["paused"]);
    await setFields(tx, subscription.id, { status: "active", pausedAt: null });
    return true;
  });
}

export async function cancelSubscription({
  ctx,
  input,
}: Verb<{ id: string; options: z.output<typeof SubscriptionCancelInput> }>): Promise<SubscriptionWithItems> {
  if (input.options.at_period_end === true) {
    return change(ctx, input.id, "customer.subscription.updated", async (tx, { subscription }) => {
      assertStatus(subscription, "cancelled", LIVE);
      if (subscription.cancelAtPeriodEnd) return false;
      await setFields(tx, subscription.id, { cancelAtPeriodEnd: true });
      return true;
    });
  }
  return change(ctx, input.id, "customer.subscription.cancelled", async (tx, { subscription }, now) => {
    assertStatus(subscription, "cancelled", LIVE);
    // Cancelling ends dunning: the open invoices stay open for the merchant, with no more retries.
    await lockDunningInvoices(tx, ctx, subscription.id);
    await stopDunning(tx, ctx, subscription.id);
    await setFields(tx, subscription.id, { status: "cancelled", cancelledAt: now, cancelAtPeriodEnd: false, upcomingInvoiceId: null });
    return true;
  });
}

export async function listSubscriptionItems({ ctx, input }: Verb<{ id: string }>): Promise<SubscriptionItemRow[]> {
  return (await getSubscription({ ctx, input })).items;
}

/** Item changes take effect from the next renewal invoice (no proration). */
export async function addSubscriptionItem({
  ctx,
  input,
}: Verb<{ id: string; item: z.output<typeof SubscriptionItemInput> }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.updated", async (tx, { subscription, items }, now) => {
    assertStatus(subscription, "changed", LIVE);
    const schedule = await scheduleOfSubscription(tx, items);
    const price = await recurringPrice(tx, ctx.accountId, input.item.price, "price", schedule);
    if (items.some((item) => item.priceId === price.id)) {
      throw validationFailed([{ field: "price", message: `Price '${price.id}' is already an item; change its quantity instead.` }]);
    }
    if (items.length >= 20) throw validationFailed([{ field: "price", message: "A subscription has at most 20 items." }]);
    await tx.insert(subscriptionItems).values({
      id: newId("subscriptionItem"),
      subscriptionId: subscription.id,
      priceId: price.id,
      quantity: input.item.quantity ?? 1,
      created: now,
      updated: now,
    });
    return true;
  });
}

function itemOf(subscription: SubscriptionRow, items: SubscriptionItemRow[], itemId: string): SubscriptionItemRow {
  const item = items.find((row) => row.id === itemId);
  if (!item) throw notFound("subscription item", itemId);
  assertStatus(subscription, "changed", LIVE);
  return item;
}

export async function updateSubscriptionItem({
  ctx,
  input,
}: Verb<{ id: string; itemId: string; quantity: number }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.updated", async (tx, { subscription, items }, now) => {
    const item = itemOf(subscription, items, input.itemId);
    if (item.quantity === input.quantity) return false;
    await tx.update(subscriptionItems).set({ quantity: input.quantity, updated: now }).where(eq(subscriptionItems.id, item.id));
    return true;
  });
}

export async function removeSubscriptionItem({ ctx, input }: Verb<{ id: string; itemId: string }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.updated", async (tx, { subscription, items }, now) => {
    const item = itemOf(subscription, items, input.itemId);
    if (items.length === 1) {
      throw new ServiceError(
        "conflict",
        `Item '${item.id}' is the last item of subscription '${subscription.id}'; cancel the subscription instead.`,
      );
    }
    await tx.update(subscriptionItems).set({ deletedAt: now, updated: now }).where(eq(subscriptionItems.id, item.id));
    return true;
  });
}

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
  return (await renewOnePeriod(ctx, input.id, input.now, { skipLocked: false }))!;
}

/**
 * The renewal in one transaction, with the subscription locked: the draft (`invoice.created`, on
 * the id `invoice.upcoming` reserved), the period advance (`customer.subscription.updated`), the
 * finalization (`invoice.finalized`), and the automatic collection with its outcome. Everything
 * commits together, or nothing does and the renewal stays due. With `skipLocked` (the clock's
 * runners) a subscription another runner holds, or that is no longer due, answers null instead.
 */
export async function renewOnePeriod(ctx: ServiceContext, id: string, now: Date, options: { skipLocked: boolean }): Promise<Renewal | null> {
  return inChangeTransaction(async (tx) => {
    const [locked] = await tx
      .select()
      .from(subscriptions)
      .where(ofAccount(ctx.accountId, id))
      .for("update", options.skipLocked ? { skipLocked: true } : {});
    if (options.skipLocked && (!locked || locked.status === "cancelled" || locked.currentPeriodEnd.getTime() > now.getTime())) return null;
    if (!locked) throw notFound("subscription", id);
    assertStatus(locked, "renewed", LIVE);
    if (now.getTime() < locked.currentPeriodEnd.getTime()) {
      throw new ServiceError("conflict", `Subscription '${locked.id}' is not due: its period ends at ${locked.currentPeriodEnd.toISOString()}.`);
    }
    const before = { subscription: locked, items: await itemsOf(tx, locked.id) };
    const at = ctx.now();
    const [customer] = await tx.select({ deletedAt: customers.deletedAt }).from(customers).where(eq(customers.id, locked.customerId));
    if (locked.cancelAtPeriodEnd || customer?.deletedAt) {
      await lockDunningInvoices(tx, ctx, locked.id);
      await stopDunning(tx, ctx, locked.id);
      await setFields(tx, locked.id, { status: "cancelled", cancelledAt: locked.currentPeriodEnd, cancelAtPeriodEnd: false, upcomingInvoiceId: null, updated: at });
      const after = { subscription: (await reread(tx, locked.id))!, items: before.items };
      await emit(tx, ctx, "customer.subscription.cancelled", after, before);
      return { subscription: after, invoice: null };
    }
    const draft = locked.status === "paused" ? null : await draftInvoice(ctx, locked, before.items, { tx, id: locked.upcomingInvoiceId });
    const schedule = await scheduleOfSubscription(tx, before.items);
    // Every end is computed from the anchor (the trial end, else the start), so month clamping never drifts.
    const anchor = locked.trialEnd ?? locked.created;
    await setFields(tx, locked.id, {
      status: locked.status === "trialing" ? "active" : locked.status,
      currentPeriodStart: locked.currentPeriodEnd,
      currentPeriodEnd: nextPeriodEnd(anchor, locked.currentPeriodEnd, schedule.interval, schedule.intervalCount),
      ...(draft ? { latestInvoiceId: draft.invoice.id } : {}),
      // The reserved id is used now, or (paused: nothing billed) never: the next period announces anew.
      upcomingInvoiceId: null,
      updated: at,
    });
    const renewed = { subscription: (await reread(tx, locked.id))!, items: before.items };
    await emit(tx, ctx, "customer.subscription.updated", renewed, before);
    if (!draft) return { subscription: renewed, invoice: null };
    const invoice = await finalizeInvoice({ ctx, tx, input: { id: draft.invoice.id } });
    if (invoice.invoice.status === "open") await collectRenewalInvoice(tx, ctx, invoice.invoice, renewed.subscription);
    return {
      subscription: { subscription: (await reread(tx, locked.id))!, items: before.items },
      invoice: await loadInvoice(tx, (await tx.select().from(invoices).where(eq(invoices.id, draft.invoice.id)))[0]!),
    };
  });
}

async function reread(tx: Transaction, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id));
  return row;
}

/* ─── For subscription change requests (lib/subscription-changes) ─────────────────────────────
 * Exports of the helpers above, and one item change applied inside the caller's transaction. The
 * change-request service validates a step (with these helpers, under the subscription's lock)
 * before it calls applyItemChange.
 */

export type SubscriptionSchedule = Schedule;
export {
  lockSubscription as lockSubscriptionForChange,
  recurringPrice as checkSubscriptionPrice,
  scheduleOfSubscription as subscriptionScheduleOf,
};

/** One change of a subscription's items, already validated against the locked subscription. */
export type ItemChange =
  | { type: "switch_price"; itemId: string; priceId: string }
  | { type: "set_quantity"; itemId: string; quantity: number }
  | { type: "add_item"; priceId: string; quantity: number }
  | { type: "remove_item"; itemId: string };

/**
 * Writes one item change of a subscription locked by `tx` (lockSubscriptionForChange) and emits
 * `customer.subscription.updated` with the full subscription before and after, in that
 * transaction. A switched item keeps its id; an added item gets a new one (returned as `itemId`).
 */
export async function applyItemChange(
  tx: Transaction,
  ctx: ServiceContext,
  before: SubscriptionWithItems,
  itemChange: ItemChange,
  now: Date,
): Promise<{ after: SubscriptionWithItems; itemId: string }> {
  let itemId: string;
  switch (itemChange.type) {
    case "switch_price":
      itemId = itemChange.itemId;
      await tx.update(subscriptionItems).set({ priceId: itemChange.priceId, updated: now }).where(eq(subscriptionItems.id, itemId));
      break;
    case "set_quantity":
      itemId = itemChange.itemId;
      await tx.update(subscriptionItems).set({ quantity: itemChange.quantity, updated: now }).where(eq(subscriptionItems.id, itemId));
      break;
    case "add_item":
      itemId = newId("subscriptionItem");
      await tx.insert(subscriptionItems).values({
        id: itemId,
        subscriptionId: before.subscription.id,
        priceId: itemChange.priceId,
        quantity: itemChange.quantity,
        created: now,
        updated: now,
      });
      break;
    case "remove_item":
      itemId = itemChange.itemId;
      await tx.update(subscriptionItems).set({ deletedAt: now, updated: now }).where(eq(subscriptionItems.id, itemId));
      break;
  }
  const [subscription] = await tx.update(subscriptions).set({ updated: now }).where(eq(subscriptions.id, before.subscription.id)).returning();
  const after = { subscription: subscription!, items: await itemsOf(tx, before.subscription.id) };
  await emit(tx, ctx, "customer.subscription.updated", after, before);
  return { after, itemId };
}
