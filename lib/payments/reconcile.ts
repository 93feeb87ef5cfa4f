import { and, eq, isNotNull } from "drizzle-orm";
import { getDb } from "@/db/client";
import { paymentIntents } from "@/db/schema";
import { columnTransition } from "@/lib/clock/due";
import type { ServiceContext } from "@/lib/context";
import { log, safeError } from "@/lib/log";
import { applyProcessorState, nextReconcileAt, sendAttempt } from "./charge-attempts";
import { processorNamed } from "./processors/registry";

/*
 * The reconciliation job (issue #36, docs/payments.md "Reconciliation"): an intent whose charge
 * stayed in flight (a crash or an outage between recording it and applying its outcome) or
 * `processing` at its processor for RECONCILE_AFTER_MS is re-read there, so a lost answer or a
 * lost webhook is healed. A time-driven transition (lib/clock), so the embedded ticker, Inngest
 * and the cron run it alike, and a sandbox account's test clock brings it forward.
 */

/**
 * Re-reads one intent due for reconciliation: a charge in flight is sent again with its own
 * idempotency key (the processor answers the charge it made, or makes it now: once either way);
 * a processing one is retrieved. Its state is applied idempotently; one still unsettled (or a
 * processor still unreachable) is looked at again RECONCILE_AFTER_MS later.
 */
export async function reconcileIntent(ctx: ServiceContext, id: string): Promise<boolean> {
  const db = await getDb();
  const [row] = await db.select().from(paymentIntents).where(and(eq(paymentIntents.accountId, ctx.accountId), eq(paymentIntents.id, id)));
  if (!row?.reconcileAt || row.reconcileAt.getTime() > ctx.now().getTime()) return false;
  let changed = false;
  try {
    if (row.chargeInFlight) {
      const after = await sendAttempt(ctx, id);
      changed = after !== null && after.chargeInFlight === null;
    } else if (row.processorReference !== null) {
      const processor = await processorNamed(db, ctx.accountId, row.processor);
      if (processor?.remote) changed = (await applyProcessorState(ctx, id, await processor.retrieve(row.processorReference))).applied;
    }
  } catch (error) {
    log().warn({ err: safeError(error), paymentIntent: id }, "payment intent not reconciled; looked at again later");
  }
  const [now] = await db.select().from(paymentIntents).where(eq(paymentIntents.id, id));
  const next = nextReconcileAt(ctx, now!.reconcileAt, now!.chargeInFlight !== null || now!.status === "processing");
  if (next !== undefined) await db.update(paymentIntents).set({ reconcileAt: next }).where(eq(paymentIntents.id, id));
  return changed;
}

/** Intents at a network processor still in flight or processing RECONCILE_AFTER_MS after they got there. */
export const paymentReconciliation = columnTransition({
  name: "payment_reconciliation",
  table: paymentIntents,
  id: paymentIntents.id,
  accountId: paymentIntents.accountId,
  dueAt: paymentIntents.reconcileAt,
  pending: isNotNull(paymentIntents.reconcileAt),
  run: reconcileIntent,
});
