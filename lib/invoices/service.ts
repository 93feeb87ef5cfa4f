import { and, asc, count, desc, eq, gt, inArray, isNull, or, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor, type Transaction } from "@/db/client";
import { coupons, customerDiscounts, customers, invoiceLines, invoices, prices } from "@/db/schema";
import type { Page } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, retryableConflict, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import type { EventType } from "@/lib/events/catalogue";
import { inChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { applyDiscounts, type Discount } from "@/lib/money";
import { MAX_LINES, type InvoiceCreateInput, type InvoiceLineInput, type InvoicePayInput, type InvoiceStatus } from "./schema";
import { serializeInvoice, type InvoiceLineRow, type InvoiceRow, type InvoiceWithLines } from "./serialize";

type LineInput = z.output<typeof InvoiceLineInput>;

/** PostgreSQL SQLSTATE lock_not_available: a NOWAIT lock found the row locked. */
const LOCK_NOT_AVAILABLE = "55P03";

/** The SQLSTATE of a database error; drizzle wraps the driver's error as `cause`. */
function sqlState(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const ofAccount = (accountId: string, id: string) => and(eq(invoices.accountId, accountId), eq(invoices.id, id));

/**
 * The invoice, locked with NOWAIT: while another operation modifies it, refuse at once with the
 * spec's retryable `invoice_locked` instead of queueing behind it (nothing has changed yet).
 */
async function lockInvoice(tx: Transaction, accountId: string, id: string): Promise<InvoiceRow> {
  let row: InvoiceRow | undefined;
  try {
    [row] = await tx.select().from(invoices).where(ofAccount(accountId, id)).for("update", { noWait: true });
  } catch (error) {
    if (sqlState(error) !== LOCK_NOT_AVAILABLE) throw error;
    // The transaction is aborted; a plain read on another connection does not wait for the lock.
    const db = await getDb();
    const [locked] = await db.select({ subscriptionId: invoices.subscriptionId }).from(invoices).where(ofAccount(accountId, id));
    throw retryableConflict({
      errorCode: "invoice_locked",
      title: "Invoice Locked",
      detail: `Invoice '${id}' is being modified by another operation; nothing was changed. Retry the same request in a few seconds.`,
      fields: { invoice_id: id, subscription_id: locked?.subscriptionId ?? null },
    });
  }
  if (!row) throw notFound("invoice", id);
  return row;
}

async function linesOf(executor: Executor, invoiceId: string): Promise<InvoiceLineRow[]> {
  return executor
    .select()
    .from(invoiceLines)
    .where(eq(invoiceLines.invoiceId, invoiceId))
    .orderBy(asc(invoiceLines.created), asc(invoiceLines.id));
}

function invalidTransition(invoice: InvoiceRow, action: string, allowed: readonly InvoiceStatus[]): ServiceError {
  return new ServiceError(
    "conflict",
    `Invoice '${invoice.id}' is ${invoice.status}; only ${allowed.join(" or ")} invoices can be ${action}.`,
  );
}

function assertStatus(invoice: InvoiceRow, action: string, allowed: readonly InvoiceStatus[]): void {
  if (!allowed.includes(invoice.status)) throw invalidTransition(invoice, action, allowed);
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
  tx: Transaction,
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

async function emit(
  tx: Transaction,
  ctx: ServiceContext,
  type: EventType,
  after: InvoiceWithLines,
  before: InvoiceWithLines | null,
): Promise<void> {
  await emitEvent(tx, ctx, {
    type,
    aggregateId: after.invoice.id,
    data: serializeInvoice(after, ctx.livemode),
    previousData: before ? serializeInvoice(before, ctx.livemode) : null,
  });
}

export async function createInvoice({
  ctx,
  input,
}: Verb<z.output<typeof InvoiceCreateInput>>): Promise<InvoiceWithLines> {
  return inChangeTransaction(async (tx) => {
    // For share: a concurrent customer deletion waits for the invoice (or the invoice sees it deleted).
    const [customer] = await tx
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)))
      .for("share");
    if (!customer) {
      throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
    }
    const now = new Date();
    const header = { id: newId("invoice"), accountId: ctx.accountId, currency: input.currency };
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
    const result = { invoice: invoice!, lines };
    await emit(tx, ctx, "invoice.created", result, null);
    return result;
  });
}

export async function getInvoice({ ctx, input }: Verb<{ id: string }>): Promise<InvoiceWithLines> {
  const db = await getDb();
  const [invoice] = await db.select().from(invoices).where(ofAccount(ctx.accountId, input.id));
  if (!invoice) throw notFound("invoice", input.id);
  return { invoice, lines: await linesOf(db, invoice.id) };
}

export type InvoiceFilters = { customer?: string; status?: InvoiceStatus };

export async function listInvoices({
  ctx,
  input,
}: Verb<Page & InvoiceFilters>): Promise<{ items: InvoiceWithLines[]; total: number }> {
  const db = await getDb();
  const conditions: (SQL | undefined)[] = [eq(invoices.accountId, ctx.accountId)];
  if (input.customer !== undefined) conditions.push(eq(invoices.customerId, input.customer));
  if (input.status !== undefined) conditions.push(eq(invoices.status, input.status));
  const where = and(...conditions);
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(invoices)
      .where(where)
      .orderBy(desc(invoices.created), desc(invoices.id))
      .limit(input.limit)
      .offset(input.offset),
    db.select({ total: count() }).from(invoices).where(where),
  ]);
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
    items: rows.map((invoice) => ({ invoice, lines: lines.filter((line) => line.invoiceId === invoice.id) })),
    total: totals?.total ?? 0,
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
      .set({ ...draftTotals(lines), updated: new Date() })
      .where(eq(invoices.id, invoice.id))
      .returning();
    return { invoice: after!, lines };
  });
}

export async function addInvoiceLine({ ctx, input }: Verb<{ invoiceId: string; line: LineInput }>): Promise<InvoiceWithLines> {
  return editDraftLines(ctx, input.invoiceId, async (tx, invoice) => {
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(invoiceLines).where(eq(invoiceLines.invoiceId, invoice.id));
    if (n >= MAX_LINES) throw validationFailed([{ field: "(body)", message: `An invoice has at most ${MAX_LINES} lines.` }]);
    await tx.insert(invoiceLines).values(await lineRow(tx, invoice, input.line, "", new Date()));
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
async function discountFor(tx: Transaction, invoice: InvoiceRow, now: Date): Promise<{ id: string; terms: Discount } | null> {
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

/** Open → paid: nothing left due, everything paid; emits invoice.paid then invoice.payment_succeeded. */
async function markPaid(tx: Transaction, ctx: ServiceContext, before: InvoiceWithLines, now: Date): Promise<InvoiceWithLines> {
  const [paid] = await tx
    .update(invoices)
    .set({ status: "paid", dueAmountAtom: 0, paidAmountAtom: before.invoice.totalAmountAtom, paidAt: now, updated: now })
    .where(eq(invoices.id, before.invoice.id))
    .returning();
  const after = { invoice: paid!, lines: before.lines };
  await emit(tx, ctx, "invoice.paid", after, before);
  await emit(tx, ctx, "invoice.payment_succeeded", after, before);
  return after;
}

/**
 * Draft → open: applies the customer's discount and fixes the totals (due = total). An invoice
 * whose total is 0 has nothing to collect and is paid at once (as in Stripe).
 */
export async function finalizeInvoice({ ctx, input }: Verb<{ id: string }>): Promise<InvoiceWithLines> {
  return inChangeTransaction(async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, input.id);
    assertStatus(invoice, "finalized", ["draft"]);
    const lines = await linesOf(tx, invoice.id);
    if (lines.length === 0) {
      throw new ServiceError("conflict", `Invoice '${invoice.id}' has no lines; add a line before finalizing it.`);
    }
    const now = new Date();
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
    const before = { invoice, lines };
    const after = { invoice: open!, lines };
    await emit(tx, ctx, "invoice.finalized", after, before);
    if (totalAtom === 0) return markPaid(tx, ctx, after, now);
    return after;
  });
}

/** Open or uncollectible → paid, out of band only (payment methods come with payment intents). */
export async function payInvoice({
  ctx,
  input,
}: Verb<{ id: string; payment: z.output<typeof InvoicePayInput> }>): Promise<InvoiceWithLines> {
  if (input.payment.paid_out_of_band !== true) {
    const message =
      "Only out-of-band payment is available yet: send paid_out_of_band: true once the customer paid outside the service. Paying with a payment method is not supported yet.";
    throw validationFailed([{ field: "paid_out_of_band", message }], message);
  }
  return inChangeTransaction(async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, input.id);
    assertStatus(invoice, "paid", ["open", "uncollectible"]);
    return markPaid(tx, ctx, { invoice, lines: await linesOf(tx, invoice.id) }, new Date());
  });
}

async function transition(
  ctx: ServiceContext,
  id: string,
  rule: { action: string; from: readonly InvoiceStatus[]; event: EventType },
  change: (now: Date) => Partial<typeof invoices.$inferInsert>,
): Promise<InvoiceWithLines> {
  return inChangeTransaction(async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, id);
    assertStatus(invoice, rule.action, rule.from);
    const lines = await linesOf(tx, invoice.id);
    const now = new Date();
    const [updated] = await tx
      .update(invoices)
      .set({ ...change(now), updated: now })
      .where(eq(invoices.id, invoice.id))
      .returning();
    const after = { invoice: updated!, lines };
    await emit(tx, ctx, rule.event, after, { invoice, lines });
    return after;
  });
}

/** Open or uncollectible → void: the invoice was a mistake; amounts are kept as billed. */
export async function voidInvoice({ ctx, input }: Verb<{ id: string }>): Promise<InvoiceWithLines> {
  return transition(ctx, input.id, { action: "voided", from: ["open", "uncollectible"], event: "invoice.voided" }, (now) => ({
    status: "void",
    voidedAt: now,
  }));
}

/** Open → uncollectible: not expected to be paid; it may still be paid out of band or voided. */
export async function markInvoiceUncollectible({ ctx, input }: Verb<{ id: string }>): Promise<InvoiceWithLines> {
  return transition(
    ctx,
    input.id,
    { action: "marked uncollectible", from: ["open"], event: "invoice.marked_uncollectible" },
    (now) => ({ status: "uncollectible", markedUncollectibleAt: now }),
  );
}
