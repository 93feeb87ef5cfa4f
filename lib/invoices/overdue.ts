import { and, asc, eq, isNotNull, isNull, lte, min, type SQL } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, invoices } from "@/db/schema";
import { accountNow, accountsWhere, DUE_BATCH, runEach } from "@/lib/clock/due";
import type { TimeTransition } from "@/lib/clock/transitions";
import type { ServiceContext } from "@/lib/context";
import { inChangeTransaction } from "@/lib/events/transaction";
import { emit, loadInvoice } from "./core";

/** Open invoices with a due date that have not been reported overdue. */
const pending = and(eq(invoices.status, "open"), isNotNull(invoices.dueDate), isNull(invoices.overdueAt));
const overdueDue = (now: Date | SQL) => and(pending, lte(invoices.dueDate, now));

/**
 * An open invoice passes its `due_date`: `overdue_at` is set (once) and `invoice.overdue` emitted
 * with the invoice after and before. The invoice stays open; nothing else changes.
 */
async function markOverdue(ctx: ServiceContext, id: string): Promise<boolean> {
  return inChangeTransaction(async (tx) => {
    const now = ctx.now();
    // Skip locked, not the merchant verbs' NOWAIT: another runner or an operation holds it; take it next run.
    const [invoice] = await tx
      .select()
      .from(invoices)
      .where(and(eq(invoices.id, id), overdueDue(now)))
      .for("update", { skipLocked: true });
    if (!invoice) return false;
    const before = await loadInvoice(tx, invoice);
    const [updated] = await tx.update(invoices).set({ overdueAt: now, updated: now }).where(eq(invoices.id, id)).returning();
    await emit(tx, ctx, "invoice.overdue", { ...before, invoice: updated! }, before);
    return true;
  });
}

export const invoiceOverdue: TimeTransition = {
  name: "invoice_overdue",
  async nextDue(executor, accountId) {
    const [row] = await executor
      .select({ at: min(invoices.dueDate) })
      .from(invoices)
      .where(and(eq(invoices.accountId, accountId), pending));
    return row?.at ?? null;
  },
  async runDue(ctx) {
    const db = await getDb();
    const due = await db
      .select({ id: invoices.id })
      .from(invoices)
      .where(and(eq(invoices.accountId, ctx.accountId), overdueDue(ctx.now())))
      .orderBy(asc(invoices.dueDate), asc(invoices.id))
      .limit(DUE_BATCH);
    return runEach(
      due.map((row) => row.id),
      (id) => markOverdue(ctx, id),
    );
  },
  async dueAccounts(executor, realNow) {
    return accountsWhere(
      executor,
      executor
        .select({ id: invoices.id })
        .from(invoices)
        .where(and(eq(invoices.accountId, accounts.id), overdueDue(accountNow(realNow)))),
    );
  },
};
