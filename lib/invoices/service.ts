import { asc, eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { invoiceLines, invoices } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { withChangeTransaction, type WithinChange } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { transitionScheduled } from "@/lib/clock/schedule";
import { one } from "@/lib/rows";
import { DAY_MS } from "@/lib/time";
import { INVOICE_ACTION_FROM, canFinalize } from "./rules";
import { assertStatus, emit, latestPaymentIntents, linesOf, loadInvoice, lockInvoice, markPaid, ofAccount } from "./core";
import { draftTotals, lineRow, setLineTaxes, usageLineRow, type LineInput, type UsageLineInput } from "./lines";
import { takeInvoiceNumber } from "./numbers";
import { issuedDocumentColumns } from "./pdf/issue";
import { amountColumns, finalizationAmounts } from "./amounts";
import { lockCustomerToBill } from "@/lib/customers/currency";
import { applyBalanceToInvoice } from "@/lib/customer-balance/service";
import { recordCreditApplications } from "@/lib/credit-grants/service";
import { endOnceDiscount } from "@/lib/discounts/service";
import { DEFAULT_DAYS_UNTIL_DUE, type InvoiceCreateInput, type InvoiceStatus } from "./schema";
import type { InvoiceRow, InvoiceWithLines } from "./serialize";

/* Invoices: create a draft, read, list, finalize. Lines: lines.ts; paying and ending: settle.ts; previews: preview.ts. */

export type CreateInvoiceInput = Omit<z.output<typeof InvoiceCreateInput>, "lines"> & {
  /** The API's lines, or a subscription's (which may bill a price archived since: `LineInput.subscribed`). */
  lines?: LineInput[];
  /** Set by subscriptions only (clients cannot): the id `invoice.upcoming` reserved, and the subscription billed. */
  id?: string;
  subscription?: string;
  /** Set by subscriptions only: their metered items' lines, priced from usage, after `lines`. */
  usage?: UsageLineInput[];
};

export async function createInvoice({ ctx, input, tx }: Verb<CreateInvoiceInput> & WithinChange): Promise<InvoiceWithLines> {
  return withChangeTransaction(async (tx) => {
    // Locked: a concurrent customer deletion waits for the invoice (or the invoice sees it deleted);
    // the customer's first invoice fixes their currency.
    const customer = await lockCustomerToBill(tx, ctx, input.customer, input.currency);
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
    for (const [index, line] of (input.usage ?? []).entries()) {
      lineRows.push(await usageLineRow(tx, header, line, `usage.${index}.`, now));
    }
    const invoice = one(await tx
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
        collectionMethod: input.collection_method ?? "charge_automatically",
        // send_invoice without a due date: due days_until_due (default 30) days after finalization.
        daysUntilDue: input.collection_method === "send_invoice" && !input.due_date ? (input.days_until_due ?? DEFAULT_DAYS_UNTIL_DUE) : null,
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning());
    const lines = lineRows.length > 0 ? await tx.insert(invoiceLines).values(lineRows).returning() : [];
    const result = { invoice: invoice, lines, paymentIntent: null };
    await emit(tx, ctx, "invoice.created", result, null);
    return result;
  }, tx);
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
  const list = listQuery("invoices", ctx.accountId, { status: input.status, customer: input.customer });
  const { rows, ...info } = await pageOf(list.table, list.where, input, list.options);
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
 * Draft → open: applies the customer's discount and fixes the totals, then the customer's credit
 * grants (they pay eligible lines: the total is after them), then the customer's balance
 * (due = total − the credit applied, or + the debit). An invoice with nothing left to collect is paid
 * at once (as in Stripe). Every path that finalizes (the API, subscriptions, renewals, usage, plan
 * changes) comes through here.
 */
export async function finalizeInvoice({ ctx, input, tx }: Verb<{ id: string }> & WithinChange): Promise<InvoiceWithLines> {
  const finalized = await withChangeTransaction(async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, input.id);
    assertStatus(invoice, "finalized", INVOICE_ACTION_FROM.finalize);
    const lines = await linesOf(tx, invoice.id);
    if (!canFinalize({ status: invoice.status, lineCount: lines.length })) {
      throw new ServiceError("conflict", `Invoice '${invoice.id}' has no lines; add a line before finalizing it.`);
    }
    const now = ctx.now();
    const amounts = await finalizationAmounts(tx, invoice, lines, now, true);
    const { discount, taxes, totalAtom } = amounts;
    const taxedLines = await setLineTaxes(tx, lines.map((line, index) => ({ id: line.id, taxRateIds: taxes.rateIds[index]!, discountAtom: taxes.lines[index]!.discountAtom, taxAmounts: taxes.lines[index]!.taxes })));
    // Credit grants first (their rows locked by finalizationAmounts): the ledger, the grants' remaining, their events.
    await recordCreditApplications(tx, ctx, invoice, amounts.creditable, amounts.credits);
    // Before any payment is attempted: the customer's balance in this currency meets the total after credits.
    const balance = await applyBalanceToInvoice(tx, ctx, { id: invoice.id, customerId: invoice.customerId, currency: invoice.currency, totalAtom });
    // A once coupon's discount has now discounted its one invoice (the balance step holds the customer's lock).
    if (discount?.duration === "once") await endOnceDiscount(tx, ctx, discount.id, now);
    // Last before the write: the sequence row stays locked until commit, so take it as late as possible.
    const { number, sequence } = await takeInvoiceNumber(tx, ctx.accountId);
    const opened = {
      status: "open",
      number,
      numberSequence: sequence,
      ...amountColumns(amounts, balance),
      discountId: discount?.id ?? null,
      ...(invoice.daysUntilDue !== null && invoice.dueDate === null ? { dueDate: new Date(now.getTime() + invoice.daysUntilDue * DAY_MS) } : {}),
      finalizedAt: now,
      updated: now,
    } satisfies Partial<InvoiceRow>;
    // The document is built from the invoice as this one update writes it (number, amounts, due date).
    const document = await issuedDocumentColumns(tx, { ...invoice, ...opened }, taxedLines);
    const open = one(await tx.update(invoices).set({ ...opened, ...document }).where(eq(invoices.id, invoice.id)).returning());
    const before = { invoice, lines, paymentIntent: null };
    const after = { invoice: open, lines: taxedLines, paymentIntent: null };
    await emit(tx, ctx, "invoice.finalized", after, before);
    // Nothing to collect (a zero total, or the customer's credit covered it): paid at once.
    if (balance.dueAtom === 0) return markPaid(tx, ctx, after, now);
    return after;
  }, tx);
  // An open invoice with a due date falls overdue then (lib/invoices/overdue.ts): wake the clock's driver for it.
  const { status, dueDate } = finalized.invoice;
  if (status === "open" && dueDate) await transitionScheduled(ctx, dueDate);
  return finalized;
}
