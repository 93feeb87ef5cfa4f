import { and, eq, isNotNull } from "drizzle-orm";
import { getDb } from "@/db/client";
import { refunds } from "@/db/schema";
import { columnTransition } from "@/lib/clock/due";
import type { ServiceContext } from "@/lib/context";
import { log, safeError } from "@/lib/log";
import { nextReconcileAt } from "@/lib/payments/charge-attempts";
import { processorNamed } from "@/lib/payments/processors/registry";
import { applyRefundState, sendRefund } from "./service";

/*
 * The refunds' half of the reconciliation job (docs/payments.md "Reconciliation"; the charges'
 * half is lib/payments/reconcile.ts): a refund at a network processor still pending
 * RECONCILE_AFTER_MS after it was made is sent again when it never got there (an outage, or a
 * crash after our commit: no processor id recorded; the request keeps its idempotency key, so the
 * processor makes it once), or re-read there when its answer or webhook was lost.
 */

/** Re-sends or re-reads one refund due for reconciliation; one still pending is looked at again RECONCILE_AFTER_MS later. */
export async function reconcileRefund(ctx: ServiceContext, id: string): Promise<boolean> {
  const db = await getDb();
  const [row] = await db.select().from(refunds).where(and(eq(refunds.accountId, ctx.accountId), eq(refunds.id, id)));
  if (!row?.reconcileAt || row.reconcileAt.getTime() > ctx.now().getTime()) return false;
  let changed = false;
  try {
    if (row.status === "pending" && row.processor !== null) {
      if (row.processorReference === null) {
        const after = await sendRefund(ctx, id);
        changed = after !== null && (after.status !== "pending" || after.processorReference !== null);
      } else {
        const processor = await processorNamed(db, ctx.accountId, row.processor);
        if (processor?.remote) changed = (await applyRefundState(ctx, id, await processor.retrieveRefund(row.processorReference))).status !== "pending";
      }
    }
  } catch (error) {
    log().warn({ err: safeError(error), refund: id }, "refund not reconciled; looked at again later");
  }
  const [now] = await db.select().from(refunds).where(eq(refunds.id, id));
  const next = nextReconcileAt(ctx, now!.reconcileAt, now!.status === "pending");
  if (next !== undefined) await db.update(refunds).set({ reconcileAt: next }).where(eq(refunds.id, id));
  return changed;
}

/** Refunds at a network processor still pending RECONCILE_AFTER_MS after they were made or last looked at. */
export const refundReconciliation = columnTransition({
  name: "refund_reconciliation",
  table: refunds,
  id: refunds.id,
  accountId: refunds.accountId,
  dueAt: refunds.reconcileAt,
  pending: isNotNull(refunds.reconcileAt),
  run: reconcileRefund,
});
