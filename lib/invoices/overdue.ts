import { and, eq, isNotNull, isNull, lte } from "drizzle-orm";
import { invoices } from "@/db/schema";
import { columnTransition, dueRowLock } from "@/lib/clock/due";
import type { ServiceContext } from "@/lib/context";
import { withChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import { emit, loadInvoice } from "./core";

/** Open invoices with a due date that have not been reported overdue. */
const pending = and(eq(invoices.status, "open"), isNotNull(invoices.dueDate), isNull(invoices.overdueAt));
const overdueDue = (now: Date) => and(pending, lte(invoices.dueDate, now));

/**
 * An open invoice passes its `due_date`: `overdue_at` is set (once) and `invoice.overdue` emitted
 * with the invoice after and before. The invoice stays open; nothing else changes.
 */
async function markOverdue(ctx: ServiceContext, id: string): Promise<boolean> {
  return withChangeTransaction(async (tx) => {
    const now = ctx.now();
    // Skip locked (dueRowLock), not the merchant verbs' NOWAIT: another runner or an operation holds it; take it next run.
    const [invoice] = await tx
      .select()
      .from(invoices)
      .where(and(eq(invoices.id, id), overdueDue(now)))
      .for("update", dueRowLock());
    if (!invoice) return false;
    const before = await loadInvoice(tx, invoice);
    const updated = one(await tx.update(invoices).set({ overdueAt: now, updated: now }).where(eq(invoices.id, id)).returning());
    await emit(tx, ctx, "invoice.overdue", { ...before, invoice: updated }, before);
    return true;
  });
}

/** An open invoice with a due date becomes overdue at its `due_date`. */
export const invoiceOverdue = columnTransition({
  name: "invoice_overdue",
  table: invoices,
  id: invoices.id,
  accountId: invoices.accountId,
  dueAt: invoices.dueDate,
  pending,
  run: markOverdue,
});
