import type { refunds } from "@/db/schema";
import { REFUND_REASONS, type RefundObject } from "./schema";

export type RefundRow = typeof refunds.$inferSelect;

type Reason = (typeof REFUND_REASONS)[number];
const isReason = (value: string): value is Reason => (REFUND_REASONS as readonly string[]).includes(value);

/** The refund as the API shows it, and as event data records it. */
export function serializeRefund(row: RefundRow, livemode: boolean): RefundObject {
  return {
    id: row.id,
    object: "refund",
    payment: row.paymentId,
    amount_atom: row.amountAtom,
    currency: row.currency,
    status: row.status,
    // The column is text; only validated reasons are ever written.
    reason: row.reason !== null && isReason(row.reason) ? row.reason : null,
    failure_reason: row.failureReason,
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}
