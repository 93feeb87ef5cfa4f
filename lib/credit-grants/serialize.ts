import type { creditGrantApplications, creditGrants } from "@/db/schema";
import type { CreditGrantObject } from "./schema";

export type CreditGrantRow = typeof creditGrants.$inferSelect;
export type CreditGrantApplicationRow = typeof creditGrantApplications.$inferSelect;

export function serializeCreditGrant(row: CreditGrantRow, livemode: boolean): CreditGrantObject {
  return {
    object: "credit_grant",
    id: row.id,
    customer: row.customerId,
    name: row.name,
    category: row.category,
    currency: row.currency,
    amount_atom: row.amountAtom,
    remaining_atom: row.remainingAtom,
    applied_atom: row.amountAtom - row.remainingAtom,
    applies_to: row.appliesToMeters === null ? "all" : { meters: row.appliesToMeters },
    priority: row.priority,
    effective_at: row.effectiveAt.toISOString(),
    expires_at: row.expiresAt?.toISOString() ?? null,
    status: row.status,
    voided_at: row.voidedAt?.toISOString() ?? null,
    expired_at: row.expiredAt?.toISOString() ?? null,
    metadata: row.metadata,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
    livemode,
  };
}

export function serializeCreditGrantApplication(row: CreditGrantApplicationRow) {
  return {
    object: "credit_grant_application" as const,
    id: row.id,
    credit_grant: row.creditGrantId,
    customer: row.customerId,
    invoice: row.invoiceId,
    line: row.invoiceLineId,
    currency: row.currency,
    amount_atom: row.amountAtom,
    created: row.created.toISOString(),
    reinstated_at: row.reinstatedAt?.toISOString() ?? null,
  };
}
