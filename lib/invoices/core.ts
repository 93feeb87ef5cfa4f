import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { isLockNotAvailable } from "@/db/errors";
import { invoiceLines, invoices, paymentIntents } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { notFound, retryableConflict, ServiceError } from "@/lib/errors";
import { emitEvent, type EmittedEvent } from "@/lib/events/emit";
import type { EventType } from "@/lib/events/catalogue";
import { one } from "@/lib/rows";
import { paidPdfSha256 } from "./pdf/issue";
import { invoiceSettled } from "./settled";
import type { InvoiceStatus } from "./schema";
import { serializeInvoice, type InvoiceLineRow, type InvoiceRow, type InvoiceWithLines } from "./serialize";

/*
 * Internals shared by the invoice verbs (service.ts) and the payment hooks (payment-hooks.ts).
 * This module imports nothing from lib/payments, so lib/payments can call the hooks without a cycle.
 */

export const ofAccount = (accountId: string, id: string) => and(eq(invoices.accountId, accountId), eq(invoices.id, id));

/**
 * The invoice, locked with NOWAIT: while another operation modifies it, refuse at once with the
 * spec's retryable `invoice_locked` instead of queueing behind it (nothing has changed yet).
 */
export async function lockInvoice(tx: ChangeTransaction, accountId: string, id: string): Promise<InvoiceRow> {
  let row: InvoiceRow | undefined;
  try {
    // In a savepoint: a refused lock rolls back only the savepoint, so the transaction stays usable
    // (also when it is an idempotent request's ambient transaction, which getDb() would return).
    [row] = await tx.transaction((savepoint) =>
      savepoint.select().from(invoices).where(ofAccount(accountId, id)).for("update", { noWait: true }),
    );
  } catch (error) {
    if (!isLockNotAvailable(error)) throw error;
    // A plain read does not wait for the row lock.
    const [locked] = await tx.select({ subscriptionId: invoices.subscriptionId }).from(invoices).where(ofAccount(accountId, id));
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

export async function linesOf(executor: Executor, invoiceId: string): Promise<InvoiceLineRow[]> {
  return executor
    .select()
    .from(invoiceLines)
    .where(eq(invoiceLines.invoiceId, invoiceId))
    .orderBy(asc(invoiceLines.created), asc(invoiceLines.id));
}

/** The latest payment intent (by creation) of each invoice; invoices without one are absent. */
export async function latestPaymentIntents(executor: Executor, invoiceIds: readonly string[]): Promise<Map<string, string>> {
  const latest = new Map<string, string>();
  if (invoiceIds.length === 0) return latest;
  const rows = await executor
    .select({ id: paymentIntents.id, invoiceId: paymentIntents.invoiceId })
    .from(paymentIntents)
    .where(inArray(paymentIntents.invoiceId, [...invoiceIds]))
    .orderBy(desc(paymentIntents.created), desc(paymentIntents.id));
  for (const row of rows) {
    if (row.invoiceId !== null && !latest.has(row.invoiceId)) latest.set(row.invoiceId, row.id);
  }
  return latest;
}

/** The invoice with its lines and its latest payment intent, as every answer and event shows it. */
export async function loadInvoice(executor: Executor, invoice: InvoiceRow): Promise<InvoiceWithLines> {
  const [lines, latest] = await Promise.all([linesOf(executor, invoice.id), latestPaymentIntents(executor, [invoice.id])]);
  return { invoice, lines, paymentIntent: latest.get(invoice.id) ?? null };
}

export function invalidTransition(invoice: InvoiceRow, action: string, allowed: readonly InvoiceStatus[]): ServiceError {
  return new ServiceError(
    "conflict",
    `Invoice '${invoice.id}' is ${invoice.status}; only ${allowed.join(" or ")} invoices can be ${action}.`,
  );
}

export function assertStatus(invoice: InvoiceRow, action: string, allowed: readonly InvoiceStatus[]): void {
  if (!allowed.includes(invoice.status)) throw invalidTransition(invoice, action, allowed);
}

export async function emit(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  type: EventType,
  after: InvoiceWithLines,
  before: InvoiceWithLines | null,
): Promise<EmittedEvent> {
  return emitEvent(tx, ctx, {
    type,
    aggregateId: after.invoice.id,
    data: serializeInvoice(after, ctx.livemode),
    previousData: before ? serializeInvoice(before, ctx.livemode) : null,
  });
}

/**
 * Open → paid: nothing left due, everything paid, dunning over; emits invoice.paid then
 * invoice.payment_succeeded. Every way an invoice gets paid ends here (out of band, a payment
 * intent's outcome, a zero total, a dunning retry), so this is where a past_due subscription learns
 * that its invoice was paid, in the same transaction.
 */
export async function markPaid(tx: ChangeTransaction, ctx: ServiceContext, before: InvoiceWithLines, now: Date): Promise<InvoiceWithLines> {
  const fields = {
    status: "paid" as const,
    dueAmountAtom: 0,
    paidAmountAtom: before.invoice.totalAmountAtom,
    paidAt: now,
    nextPaymentAttempt: null,
    updated: now,
  };
  // The document's paid version, rendered once from the paid state: its hash is fixed with the payment.
  const paidPdf = await paidPdfSha256({ ...before.invoice, ...fields }, before.lines);
  const paid = one(await tx
    .update(invoices)
    .set({ ...fields, paidPdfSha256: paidPdf })
    .where(eq(invoices.id, before.invoice.id))
    .returning());
  const after = { ...before, invoice: paid };
  await emit(tx, ctx, "invoice.paid", after, before);
  await emit(tx, ctx, "invoice.payment_succeeded", after, before);
  await invoiceSettled(tx, ctx, paid.id, paid.subscriptionId);
  return after;
}
