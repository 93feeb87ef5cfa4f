import { and, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { checkoutSessions, customers, prices, products, type CheckoutLineItem } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import type { EventType } from "@/lib/events/catalogue";
import { transitionScheduled } from "@/lib/clock/schedule";
import { dueRowLock } from "@/lib/clock/due";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { amountOf, currenciesOf, safeAtoms, termsIn } from "@/lib/prices/amount";
import { priceName } from "@/lib/prices/name";
import { one } from "@/lib/rows";
import { patchRecord } from "@/lib/schemas";
import { serializedWithCompletion } from "./claim";
import { isChangeableSession } from "./rules";
import {
  MAX_LIFETIME_MS,
  MIN_LIFETIME_MS,
  type CheckoutLineItemInput,
  type CheckoutSessionCreateInput,
  type CheckoutSessionUpdateInput,
  type CheckoutStatus,
} from "./schema";
import { serializeCheckoutSession, type CheckoutSessionRow } from "./serialize";

type PriceRow = typeof prices.$inferSelect;
type ProductRow = typeof products.$inferSelect;
type Mode = "payment" | "subscription";

const live = (accountId: string) => and(eq(checkoutSessions.accountId, accountId), isNull(checkoutSessions.deletedAt));

/** The session, locked for the rest of the transaction; deleted sessions do not exist. */
export async function lockSession(tx: ChangeTransaction, accountId: string, id: string): Promise<CheckoutSessionRow> {
  const [row] = await tx.select().from(checkoutSessions).where(and(live(accountId), eq(checkoutSessions.id, id))).for("update");
  if (!row) throw notFound("checkout session", id);
  return row;
}

export async function emitSessionEvent(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  type: EventType,
  after: CheckoutSessionRow,
  before: CheckoutSessionRow | null,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await emitEvent(tx, ctx, {
    type,
    aggregateId: after.id,
    data: { ...serializeCheckoutSession(after, ctx.livemode), ...extra },
    previousData: before ? serializeCheckoutSession(before, ctx.livemode) : null,
  });
}

export function assertOpen(session: CheckoutSessionRow, action: string): void {
  if (!isChangeableSession(session)) {
    throw new ServiceError("conflict", `Checkout session '${session.id}' is ${session.status}; only open sessions can be ${action}.`);
  }
}

/** The product's name, with the price's nickname when it has one: what the page lists. */
const describe = (price: PriceRow, product: ProductRow) => priceName(product.name, price.nickname);

/**
 * Every line's price, checked in body order: of the account, not deleted, active, of an active
 * product ("whoever sells checks active on both"), of the mode's type; the first fixes the currency
 * (and, for a subscription, the interval) the others must share. Anything else is a 422 naming
 * `line_items.N.price`, before anything is written.
 */
async function resolveLineItems(
  executor: Executor,
  accountId: string,
  mode: Mode,
  items: z.output<typeof CheckoutLineItemInput>[],
  customerCurrency: string | null,
): Promise<{ lines: CheckoutLineItem[]; currency: string; totalAtom: number }> {
  const lines: CheckoutLineItem[] = [];
  let first: PriceRow | null = null;
  let total = BigInt(0);
  for (const [index, item] of items.entries()) {
    const field = `line_items.${index}.price`;
    const refuse = (message: string) => validationFailed([{ field, message }], `${field}: ${message}`);
    const [row] = await executor
      .select({ price: prices, product: products })
      .from(prices)
      .innerJoin(products, eq(products.id, prices.productId))
      .where(and(eq(prices.accountId, accountId), eq(prices.id, item.price), isNull(prices.deletedAt)));
    if (!row) throw refuse(`No such price: '${item.price}'.`);
    const { price, product } = row;
    if (!price.active) throw refuse(`Price '${price.id}' is archived.`);
    if (!product.active || product.deletedAt !== null) throw refuse(`The product of price '${price.id}' is archived.`);
    if (mode === "payment" && price.type !== "one_time") {
      throw refuse(`Price '${price.id}' is recurring; payment mode sells one_time prices (use mode subscription).`);
    }
    if (mode === "subscription" && price.type !== "recurring") {
      throw refuse(`Price '${price.id}' is one_time; subscription mode needs recurring prices.`);
    }
    if (lines.some((line) => line.price === price.id)) throw refuse(`Price '${price.id}' appears twice; set its quantity instead.`);
    // The session's currency: the customer's when they have one, else the first price's own; every price bills in it.
    const currency = customerCurrency ?? first?.currency ?? price.currency;
    const terms = termsIn(price, currency);
    if (!terms) {
      throw refuse(`Price '${price.id}' has no ${currency} amount: it bills in ${currenciesOf(price).join(", ")}; the session is in ${currency}.`);
    }
    if (first) {
      if (price.recurringInterval !== first.recurringInterval || price.recurringIntervalCount !== first.recurringIntervalCount) {
        throw refuse(
          `Price '${price.id}' bills every ${price.recurringIntervalCount} ${price.recurringInterval}; the first bills every ${first.recurringIntervalCount} ${first.recurringInterval}.`,
        );
      }
    }
    first ??= price;
    const quantity = item.quantity ?? 1;
    // Per unit or by its tiers for the quantity (a tiered price has no single unit amount: 0).
    const amount = safeAtoms(amountOf(terms, quantity));
    if (amount === null) {
      throw validationFailed([{ field: `line_items.${index}.quantity`, message: "The line's amount exceeds 2^53 - 1 atoms." }]);
    }
    total += BigInt(amount);
    const unitAmountAtom = terms.billingScheme === "tiered" ? 0 : terms.unitAmountAtom;
    lines.push({ price: price.id, quantity, description: describe(price, product), unit_amount_atom: unitAmountAtom, amount_atom: amount });
  }
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw validationFailed([{ field: "line_items", message: "The total exceeds 2^53 - 1 atoms." }]);
  }
  if (mode === "payment" && total === BigInt(0)) {
    throw validationFailed([{ field: "line_items", message: "The total is 0: a payment session needs something to pay." }]);
  }
  return { lines, currency: customerCurrency ?? first!.currency, totalAtom: Number(total) };
}

/** Publishable tokens act for a browser: they may not attach a session to an existing customer. */
const callerIsPublishable = (ctx: ServiceContext): boolean => ctx.actor.type === "api_key" && ctx.actor.tokenKind === "publishable";

export async function createCheckoutSession({
  ctx,
  input,
}: Verb<z.output<typeof CheckoutSessionCreateInput>>): Promise<CheckoutSessionRow> {
  const now = ctx.now();
  let expiresAt = new Date(now.getTime() + MAX_LIFETIME_MS);
  if (input.expires_at !== undefined) {
    expiresAt = new Date(input.expires_at);
    const ahead = expiresAt.getTime() - now.getTime();
    if (ahead < MIN_LIFETIME_MS || ahead > MAX_LIFETIME_MS) {
      throw validationFailed([
        { field: "expires_at", message: `Must be 30 minutes to 24 hours after the account's current time, ${now.toISOString()}.` },
      ]);
    }
  }
  const db = await getDb();
  if (input.customer !== undefined && callerIsPublishable(ctx)) {
    throw validationFailed([
      { field: "customer", message: "Publishable tokens cannot name an existing customer; use customer_email, or a secret token." },
    ]);
  }
  // A named customer's currency (when they have one) is the session's: prices bill in it from their currency options.
  const [named] =
    input.customer === undefined
      ? []
      : await db
          .select({ currency: customers.currency })
          .from(customers)
          .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)));
  const { lines, currency, totalAtom } = await resolveLineItems(db, ctx.accountId, input.mode, input.line_items, named?.currency ?? null);

  const created = await withChangeTransaction(async (tx) => {
    if (input.customer !== undefined) {
      // For share: the customer cannot be deleted while the session that names it is being made.
      const [customer] = await tx
        .select({ id: customers.id })
        .from(customers)
        .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)))
        .for("share");
      if (!customer) throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
    }
    const row = one(await tx
      .insert(checkoutSessions)
      .values({
        id: newId("checkoutSession"),
        accountId: ctx.accountId,
        mode: input.mode,
        status: "open",
        customerId: input.customer ?? null,
        customerEmail: input.customer_email ?? null,
        currency,
        lineItems: lines,
        amountTotalAtom: totalAtom,
        successUrl: input.success_url,
        cancelUrl: input.cancel_url ?? null,
        trialPeriodDays: input.subscription_data?.trial_period_days ?? null,
        setupFutureUsage: input.payment_intent_data?.setup_future_usage ?? null,
        expiresAt,
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning());
    await emitSessionEvent(tx, ctx, "checkout.session.created", row, null);
    return row;
  });
  // Expiry is due at expires_at: a driver that sleeps until then (Inngest) wakes on time.
  await transitionScheduled(ctx, created.expiresAt);
  return created;
}

export async function getCheckoutSession({ ctx, input }: Verb<{ id: string }>): Promise<CheckoutSessionRow> {
  const db = await getDb();
  const [row] = await db.select().from(checkoutSessions).where(and(live(ctx.accountId), eq(checkoutSessions.id, input.id)));
  if (!row) throw notFound("checkout session", input.id);
  return row;
}

export type CheckoutSessionFilters = { status?: CheckoutStatus; customer?: string };

export async function listCheckoutSessions({
  ctx,
  input,
}: Verb<Page & CheckoutSessionFilters>): Promise<{ rows: CheckoutSessionRow[] } & PageInfo> {
  const list = listQuery("checkout_sessions", ctx.accountId, { status: input.status, customer: input.customer });
  return pageOf(list.table, list.where, input, list.options);
}

export async function updateCheckoutSession({
  ctx,
  input,
}: Verb<{ id: string; changes: z.output<typeof CheckoutSessionUpdateInput> }>): Promise<CheckoutSessionRow> {
  return serializedWithCompletion(input.id, () =>
    withChangeTransaction(async (tx) => {
      const before = await lockSession(tx, ctx.accountId, input.id);
      assertOpen(before, "updated");
      const email = input.changes.customer_email;
      if (email !== undefined && email !== null && before.customerId !== null) {
        throw validationFailed([
          { field: "customer_email", message: `The session is for customer '${before.customerId}', whose email it uses.` },
        ]);
      }
      const next = {
        metadata: patchRecord(before.metadata, input.changes.metadata),
        customerEmail: email === undefined ? before.customerEmail : email,
      };
      if (next.customerEmail === before.customerEmail && JSON.stringify(next.metadata) === JSON.stringify(before.metadata)) return before;
      const after = one(await tx
        .update(checkoutSessions)
        .set({ ...next, updated: ctx.now() })
        .where(eq(checkoutSessions.id, before.id))
        .returning());
      await emitSessionEvent(tx, ctx, "checkout.session.updated", after, before);
      return after;
    }),
  );
}

/** Open → deleted (soft): 404 from then on, its events kept. Complete and expired sessions are records of what happened: 409. */
export async function deleteCheckoutSession({ ctx, input }: Verb<{ id: string }>): Promise<{ id: string }> {
  return serializedWithCompletion(input.id, () =>
    withChangeTransaction(async (tx) => {
      const before = await lockSession(tx, ctx.accountId, input.id);
      assertOpen(before, "deleted");
      const now = ctx.now();
      const after = one(await tx
        .update(checkoutSessions)
        .set({ deletedAt: now, updated: now })
        .where(eq(checkoutSessions.id, before.id))
        .returning());
      await emitSessionEvent(tx, ctx, "checkout.session.deleted", after, before, { deleted: true });
      return { id: before.id };
    }),
  );
}

async function expireLocked(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: CheckoutSessionRow,
  expiredAt: Date,
  updated: Date = ctx.now(),
): Promise<CheckoutSessionRow> {
  const after = one(await tx
    .update(checkoutSessions)
    .set({ status: "expired", expiredAt, updated })
    .where(eq(checkoutSessions.id, before.id))
    .returning());
  await emitSessionEvent(tx, ctx, "checkout.session.expired", after, before);
  return after;
}

/** Open → expired now, by the merchant (the page then says so and links back to `cancel_url`). */
export async function expireCheckoutSession({ ctx, input }: Verb<{ id: string }>): Promise<CheckoutSessionRow> {
  return serializedWithCompletion(input.id, () =>
    withChangeTransaction(async (tx) => {
      const before = await lockSession(tx, ctx.accountId, input.id);
      assertOpen(before, "expired");
      // One reading of the clock: expired now means `expired_at` and `updated` are the same instant.
      const now = ctx.now();
      return expireLocked(tx, ctx, before, now, now);
    }),
  );
}

/**
 * Expires one session whose `expires_at` has passed on the account's clock (the clock calls it).
 * Locked as the clock locks due rows (`dueRowLock`, skip locked): a session being completed right
 * now is left alone (its completion decides). Re-checked under the lock, so it runs at most once.
 * Returns whether it expired it.
 */
export async function expireDueSession(ctx: ServiceContext, id: string): Promise<boolean> {
  return serializedWithCompletion(id, () =>
    withChangeTransaction(async (tx) => {
      const [before] = await tx
        .select()
        .from(checkoutSessions)
        .where(and(live(ctx.accountId), eq(checkoutSessions.id, id)))
        .for("update", dueRowLock());
      if (!before || before.status !== "open" || before.expiresAt.getTime() > ctx.now().getTime()) return false;
      // It expired at its expiry time, however late the clock came round to it.
      await expireLocked(tx, ctx, before, before.expiresAt);
      return true;
    }),
  );
}
