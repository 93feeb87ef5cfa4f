import { and, asc, count, eq, gt, inArray, isNull, or, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor, type Transaction } from "@/db/client";
import { pageOf } from "@/db/page";
import { coupons, customerDiscounts, customers, invoiceLines, invoices, prices } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import type { EventType } from "@/lib/events/catalogue";
import { inChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { transitionScheduled } from "@/lib/clock/schedule";
import { applyDiscounts, type Discount } from "@/lib/money";
import { createPaymentIntent } from "@/lib/payments/service";
import { settleSubscriptionOf } from "@/lib/subscriptions/collection-status";
import { assertStatus, emit, latestPaymentIntents, linesOf, loadInvoice, lockInvoice, markPaid, ofAccount } from "./core";
import { MAX_LINES, type InvoiceCreateInput, type InvoiceLineInput, type InvoicePayInput, type InvoiceStatus } from "./schema";
import type { InvoiceLineRow, InvoiceRow, InvoiceWithLines } from "./serialize";

type LineInput = z.output<typeof InvoiceLineInput>;

/**
 * The verbs below run inside a caller's transaction when given `tx` (a subscription renewing makes,
 * finalizes and collects its invoice in the transaction that advances its period), else in their own.
 */
export type InTransaction = { tx?: Transaction };

function inTransaction<T>(tx: Transaction | undefined, change: (tx: Transaction) => Promise<T>): Promise<T> {
  return tx ? change(tx) : inChangeTransaction(change);
}

/** quantity × unit, refused when it cannot be an exact integer (beyond 2^53 − 1). */
function lineAmount(quantity: number, unitAmountAtom: number, field: string): number {
  const amount = BigInt(quantity) * BigInt(unitAmountAtom);
  if (amount > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw validationFailed([{ field, message: "quantity × unit amount exceeds 2^53 - 1 atoms." }]);
  }
  return Number(amount);
}

/** Resolves one line input into a row to insert: a price of the account in the invoice's currency, or a custom amount. */
async function lineRow(
  tx: Executor,
  invoice: Pick<InvoiceRow, "id" | "accountId" | "currency">,
  line: LineInput,
  field: string,
  created: Date,
): Promise<typeof invoiceLines.$inferInsert> {
  const quantity = line.quantity ?? 1;
  let unitAmountAtom: number;
  let priceId: string | null = null;
  if (line.price !== undefined) {
    const [price] = await tx
      .select()
      .from(prices)
      .where(and(eq(prices.accountId, invoice.accountId), eq(prices.id, line.price), isNull(prices.deletedAt)));
    const refuse = (message: string) => validationFailed([{ field: `${field}price`, message }], message);
    if (!price) throw refuse(`No such price: '${line.price}'.`);
    if (!price.active) throw refuse(`Price '${price.id}' is archived.`);
    if (price.currency !== invoice.currency) {
      throw refuse(`Price '${price.id}' is in ${price.currency}; the invoice is in ${invoice.currency}.`);
    }
    unitAmountAtom = price.unitAmountAtom;
    priceId = price.id;
  } else {
    // The schema requires unit_amount_atom when price is absent.
    unitAmountAtom = line.unit_amount_atom!;
  }
  return {
    id: newId("invoiceLine"),
    accountId: invoice.accountId,
    invoiceId: invoice.id,
    priceId,
    description: line.description ?? null,
    quantity,
    unitAmountAtom,
    amountAtom: lineAmount(quantity, unitAmountAtom, `${field}quantity`),
    created,
  };
}

/** Draft totals follow the lines; the discount is applied only at finalization. */
function draftTotals(lines: readonly Pick<InvoiceLineRow, "amountAtom">[]) {
  const subtotal = lines.reduce((sum, line) => sum + BigInt(line.amountAtom), BigInt(0));
  if (subtotal > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw validationFailed([{ field: "lines", message: "The invoice subtotal exceeds 2^53 - 1 atoms." }]);
  }
  const subtotalAtom = Number(subtotal);
  return { subtotalAtom, discountAtom: 0, totalAmountAtom: subtotalAtom, dueAmountAtom: subtotalAtom };
}

export type CreateInvoiceInput = z.output<typeof InvoiceCreateInput> & {
  /** Set by subscriptions only (clients cannot): the id `invoice.upcoming` reserved, and the subscription billed. */
  id?: string;
  subscription?: string;
};

export async function createInvoice({ ctx, input, tx }: Verb<CreateInvoiceInput> & InTransaction): Promise<InvoiceWithLines> {
  return inTransaction(tx, async (tx) => {
    // For share: a concurrent customer deletion waits for the invoice (or the invoice sees it deleted).
    const [customer] = await tx
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)))
      .for("share");
    if (!customer) {
      throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
    }
    const now = ctx.now();
    const header = { id: input.id ?? newId("invoice"), accountId: ctx.accountId, currency: input.currency };
    const lineRows: (typeof invoiceLines.$inferInsert)[] = [];
    for (const [index, line] of (input.lines ?? []).entries()) {
      // Same millisecond for all: the id (monotonic within a process) keeps their order.
      lineRows.push(await lineRow(tx, header, line, `lines.${index}.`, now));
    }
    const [invoice] = await tx
      .insert(invoices)
      .values({
        ...header,
        customerId: customer.id,
        subscriptionId: input.subscription ?? null,
        status: "draft",
        ...draftTotals(lineRows),
        paidAmountAtom: 0,
        description: input.description ?? null,
        dueDate: input.due_date ? new Date(input.due_date) : null,
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning();
    const lines = lineRows.length > 0 ? await tx.insert(invoiceLines).values(lineRows).returning() : [];
    const result = { invoice: invoice!, lines, paymentIntent: null };
    await emit(tx, ctx, "invoice.created", result, null);
    return result;
  });
}

export async function getInvoice({ ctx, input }: Verb<{ id: string }>): Promise<InvoiceWithLines> {
  const db = await getDb();
  const [invoice] = await db.select().from(invoices).where(ofAccount(ctx.accountId, input.id));
  if (!invoice) throw notFound("invoice", input.id);
  return loadInvoice(db, invoice);
}

export type InvoiceFilters = { customer?: string; status?: InvoiceStatus };

export async function listInvoices({
  ctx,
  input,
}: Verb<Page & InvoiceFilters>): Promise<{ items: InvoiceWithLines[] } & PageInfo> {
  const db = await getDb();
  const conditions: (SQL | undefined)[] = [eq(invoices.accountId, ctx.accountId)];
  if (input.customer !== undefined) conditions.push(eq(invoices.customerId, input.customer));
  if (input.status !== undefined) conditions.push(eq(invoices.status, input.status));
  const where = and(...conditions);
  const { rows, ...info } = await pageOf(invoices, where, input);
  const intents = await latestPaymentIntents(
    db,
    rows.map((row) => row.id),
  );
  const lines =
    rows.length === 0
      ? []
      : await db
          .select()
          .from(invoiceLines)
          .where(
            inArray(
              invoiceLines.invoiceId,
              rows.map((row) => row.id),
            ),
          )
          .orderBy(asc(invoiceLines.created), asc(invoiceLines.id));
  return {
    items: rows.map((invoice) => ({
      invoice,
      lines: lines.filter((line) => line.invoiceId === invoice.id),
      paymentIntent: intents.get(invoice.id) ?? null,
    })),
    ...info,
  };
}

/**
 * Changes a draft's lines and recomputes its totals. Draft edits emit no event: the catalogue has
 * no `invoice.updated`, and the lines are final (and recorded) in `invoice.finalized`.
 */
async function editDraftLines(
  ctx: ServiceContext,
  invoiceId: string,
  edit: (tx: Transaction, invoice: InvoiceRow) => Promise<void>,
): Promise<InvoiceWithLines> {
  return inChangeTransaction(async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, invoiceId);
    if (invoice.status !== "draft") {
      throw new ServiceError("conflict", `Invoice '${invoice.id}' is ${invoice.status}; only a draft invoice's lines can change.`);
    }
    await edit(tx, invoice);
    const lines = await linesOf(tx, invoice.id);
    const [after] = await tx
      .update(invoices)
      .set({ ...draftTotals(lines), updated: ctx.now() })
      .where(eq(invoices.id, invoice.id))
      .returning();
    // Only open or uncollectible invoices are paid with an intent: a draft has none.
    return { invoice: after!, lines, paymentIntent: null };
  });
}

export async function addInvoiceLine({ ctx, input }: Verb<{ invoiceId: string; line: LineInput }>): Promise<InvoiceWithLines> {
  return editDraftLines(ctx, input.invoiceId, async (tx, invoice) => {
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(invoiceLines).where(eq(invoiceLines.invoiceId, invoice.id));
    if (n >= MAX_LINES) throw validationFailed([{ field: "(body)", message: `An invoice has at most ${MAX_LINES} lines.` }]);
    await tx.insert(invoiceLines).values(await lineRow(tx, invoice, input.line, "", ctx.now()));
  });
}

export async function removeInvoiceLine({ ctx, input }: Verb<{ invoiceId: string; lineId: string }>): Promise<InvoiceWithLines> {
  return editDraftLines(ctx, input.invoiceId, async (tx, invoice) => {
    const removed = await tx
      .delete(invoiceLines)
      .where(and(eq(invoiceLines.invoiceId, invoice.id), eq(invoiceLines.id, input.lineId)))
      .returning({ id: invoiceLines.id });
    if (removed.length === 0) throw notFound("invoice line", input.lineId);
  });
}

/**
 * The customer's discount in force now (active, not ended) as money terms, or null. A coupon
 * deleted after it was applied still honours the discount (as in Stripe); an amount-off coupon
 * in another currency cannot apply to this invoice.
 */
async function discountFor(tx: Executor, invoice: Pick<InvoiceRow, "customerId" | "currency">, now: Date): Promise<{ id: string; terms: Discount } | null> {
  const [row] = await tx
    .select({ id: customerDiscounts.id, percentOffBps: coupons.percentOffBps, amountOffAtom: coupons.amountOffAtom, currency: coupons.currency })
    .from(customerDiscounts)
    .innerJoin(coupons, eq(coupons.id, customerDiscounts.couponId))
    .where(
      and(
        eq(customerDiscounts.customerId, invoice.customerId),
        eq(customerDiscounts.active, true),
        isNull(customerDiscounts.deletedAt),
        or(isNull(customerDiscounts.end), gt(customerDiscounts.end, now)),
      ),
    );
  if (!row) return null;
  if (row.percentOffBps !== null) return { id: row.id, terms: { percentOffBps: row.percentOffBps } };
  if (row.amountOffAtom !== null && row.currency === invoice.currency) return { id: row.id, terms: { amountOffAtom: row.amountOffAtom } };
  return null;
}

/**
 * Draft → open: applies the customer's discount and fixes the totals (due = total). An invoice
 * whose total is 0 has nothing to collect and is paid at once (as in Stripe).
 */
export async function finalizeInvoice({ ctx, input, tx }: Verb<{ id: string }> & InTransaction): Promise<InvoiceWithLines> {
  const finalized = await inTransaction(tx, async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, input.id);
    assertStatus(invoice, "finalized", ["draft"]);
    const lines = await linesOf(tx, invoice.id);
    if (lines.length === 0) {
      throw new ServiceError("conflict", `Invoice '${invoice.id}' has no lines; add a line before finalizing it.`);
    }
    const now = ctx.now();
    const discount = await discountFor(tx, invoice, now);
    const { subtotalAtom } = draftTotals(lines);
    const { discountAtom, totalAtom } = applyDiscounts(subtotalAtom, discount ? [discount.terms] : []);
    const [open] = await tx
      .update(invoices)
      .set({
        status: "open",
        subtotalAtom,
        discountAtom,
        totalAmountAtom: totalAtom,
        dueAmountAtom: totalAtom,
        discountId: discount?.id ?? null,
        finalizedAt: now,
        updated: now,
      })
      .where(eq(invoices.id, invoice.id))
      .returning();
    const before = { invoice, lines, paymentIntent: null };
    const after = { invoice: open!, lines, paymentIntent: null };
    await emit(tx, ctx, "invoice.finalized", after, before);
    if (totalAtom === 0) return markPaid(tx, ctx, after, now);
    return after;
  });
  // An open invoice with a due date falls overdue then (lib/invoices/overdue.ts): wake the clock's driver for it.
  const { status, dueDate } = finalized.invoice;
  if (status === "open" && dueDate) await transitionScheduled(ctx, dueDate);
  return finalized;
}

/**
 * What `createInvoice` followed by `finalizeInvoice` at `at` would make of these lines (the
 * customer's discount in force at `at` included), stored nowhere: the preview `invoice.upcoming`
 * carries, status `draft`. Its line ids are not kept; the invoice itself will carry `input.id`.
 */
export async function previewInvoice({
  ctx,
  input,
  tx,
}: Verb<CreateInvoiceInput & { id: string; at: Date }> & { tx: Transaction }): Promise<InvoiceWithLines> {
  const now = ctx.now();
  const header = { id: input.id, accountId: ctx.accountId, customerId: input.customer, currency: input.currency };
  const lines: InvoiceLineRow[] = [];
  for (const [index, line] of (input.lines ?? []).entries()) {
    const row = await lineRow(tx, header, line, `lines.${index}.`, now);
    lines.push({ ...row, id: row.id!, priceId: row.priceId ?? null, description: row.description ?? null, created: now });
  }
  const { subtotalAtom } = draftTotals(lines);
  const discount = await discountFor(tx, header, input.at);
  const { discountAtom, totalAtom } = applyDiscounts(subtotalAtom, discount ? [discount.terms] : []);
  const invoice: InvoiceRow = {
    ...header,
    subscriptionId: input.subscription ?? null,
    status: "draft",
    subtotalAtom,
    discountAtom,
    totalAmountAtom: totalAtom,
    dueAmountAtom: totalAtom,
    paidAmountAtom: 0,
    discountId: discount?.id ?? null,
    description: input.description ?? null,
    dueDate: input.due_date ? new Date(input.due_date) : null,
    finalizedAt: null,
    paidAt: null,
    voidedAt: null,
    markedUncollectibleAt: null,
    overdueAt: null,
    attemptCount: 0,
    nextPaymentAttempt: null,
    metadata: input.metadata ?? {},
    created: now,
    updated: now,
  };
  return { invoice, lines, paymentIntent: null };
}

/**
 * Open or uncollectible → paid. Out of band (`paid_out_of_band: true`) marks it paid; with a
 * `payment_method`, one transaction holding the invoice's lock creates a payment intent for the
 * due amount (linked to the invoice and its customer) and confirms it: the intent's outcome
 * reaches the invoice through `applyPaymentIntentOutcome` (payment-hooks.ts), called by the
 * payments service, so an intent confirmed later behaves the same. Answers the invoice as it
 * stands afterwards: paid, or still open (payment failed, action required, partially funded).
 */
export async function payInvoice({
  ctx,
  input,
  tx: outer,
}: Verb<{ id: string; payment: z.output<typeof InvoicePayInput> }> & InTransaction): Promise<InvoiceWithLines> {
  const { paid_out_of_band: outOfBand, payment_method: paymentMethod } = input.payment;
  if (outOfBand === true && paymentMethod !== undefined) {
    const message = "Give either paid_out_of_band: true or payment_method, not both.";
    throw validationFailed([{ field: "payment_method", message }], message);
  }
  if (outOfBand !== true && paymentMethod === undefined) {
    const message =
      "Give payment_method (a sandbox payment method, on sandbox accounts) or paid_out_of_band: true once the customer paid outside the service.";
    throw validationFailed([{ field: "paid_out_of_band", message }], message);
  }
  return inTransaction(outer, async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, input.id);
    assertStatus(invoice, "paid", ["open", "uncollectible"]);
    if (paymentMethod === undefined) return markPaid(tx, ctx, await loadInvoice(tx, invoice), ctx.now());
    // Live accounts and unknown methods are refused (422) here, before anything is written.
    await createPaymentIntent({
      ctx,
      tx,
      input: {
        amount_atom: invoice.dueAmountAtom,
        currency: invoice.currency,
        customer: invoice.customerId,
        invoice: invoice.id,
        payment_method: paymentMethod,
        confirm: true,
      },
    });
    const [after] = await tx.select().from(invoices).where(eq(invoices.id, invoice.id));
    return loadInvoice(tx, after!);
  });
}

/**
 * A status change of one invoice. Voiding or writing off an invoice also ends its dunning
 * (`next_payment_attempt` null); when the merchant does it (`settles`), a past_due subscription
 * whose last invoice in dunning this was is active again, in the same transaction.
 */
async function transition(
  ctx: ServiceContext,
  tx: Transaction | undefined,
  id: string,
  rule: { action: string; from: readonly InvoiceStatus[]; event: EventType; settles: boolean },
  change: (now: Date) => Partial<typeof invoices.$inferInsert>,
): Promise<InvoiceWithLines> {
  return inTransaction(tx, async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, id);
    assertStatus(invoice, rule.action, rule.from);
    const before = await loadInvoice(tx, invoice);
    const now = ctx.now();
    const [updated] = await tx
      .update(invoices)
      .set({ ...change(now), nextPaymentAttempt: null, updated: now })
      .where(eq(invoices.id, invoice.id))
      .returning();
    const after = { ...before, invoice: updated! };
    await emit(tx, ctx, rule.event, after, before);
    if (rule.settles) await settleSubscriptionOf(tx, ctx, invoice.id, invoice.subscriptionId);
    return after;
  });
}

/** Open or uncollectible → void: the invoice was a mistake; amounts are kept as billed. */
export async function voidInvoice({ ctx, input }: Verb<{ id: string }>): Promise<InvoiceWithLines> {
  return transition(
    ctx,
    undefined,
    input.id,
    { action: "voided", from: ["open", "uncollectible"], event: "invoice.voided", settles: true },
    (now) => ({ status: "void", voidedAt: now }),
  );
}

/** Open → uncollectible: not expected to be paid; it may still be paid out of band or voided. */
export async function markInvoiceUncollectible({ ctx, input }: Verb<{ id: string }>): Promise<InvoiceWithLines> {
  return transition(
    ctx,
    undefined,
    input.id,
    { action: "marked uncollectible", from: ["open"], event: "invoice.marked_uncollectible", settles: true },
    (now) => ({ status: "uncollectible", markedUncollectibleAt: now }),
  );
}

/** Dunning's last retry failed: open → uncollectible in the retry's transaction (the subscription is cancelled next, by dunning). */
export async function markUncollectibleForNonPayment({ ctx, tx, input }: Verb<{ id: string }> & { tx: Transaction }): Promise<InvoiceWithLines> {
  return transition(
    ctx,
    tx,
    input.id,
    { action: "marked uncollectible", from: ["open"], event: "invoice.marked_uncollectible", settles: false },
    (now) => ({ status: "uncollectible", markedUncollectibleAt: now }),
  );
}
