import type { disputes } from "@/db/schema";
import type { DISPUTE_PROCESSORS, DisputeObject } from "./schema";
import type { DisputeStatus } from "./statuses";

export type DisputeRow = typeof disputes.$inferSelect;

/** The dispute as the API shows it, and as event data records it. */
export function serializeDispute(row: DisputeRow, livemode: boolean): DisputeObject {
  return {
    object: "dispute",
    id: row.id,
    payment: row.paymentId,
    payment_intent: row.paymentIntentId,
    // The columns are text; only the registry's processors and DISPUTE_STATUSES are ever written.
    processor: row.processor as (typeof DISPUTE_PROCESSORS)[number],
    processor_dispute: row.processorReference,
    amount_atom: row.amountAtom,
    currency: row.currency,
    reason: row.reason,
    status: row.status as DisputeStatus,
    evidence_due_by: row.evidenceDueBy?.toISOString() ?? null,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}
