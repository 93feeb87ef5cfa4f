import type { customerBalanceTransactions } from "@/db/schema";
import type { CustomerBalanceTransactionObject } from "./schema";

export type BalanceTransactionRow = typeof customerBalanceTransactions.$inferSelect;

export function serializeBalanceTransaction(row: BalanceTransactionRow, livemode: boolean): CustomerBalanceTransactionObject {
  return {
    id: row.id,
    object: "customer_balance_transaction",
    customer: row.customerId,
    currency: row.currency,
    amount_atom: row.amountAtom,
    ending_balance_atom: row.endingBalanceAtom,
    type: row.type,
    description: row.description,
    invoice: row.invoiceId,
    credit_note: row.creditNoteId,
    subscription_change_request: row.changeRequestId,
    livemode,
    created: row.created.toISOString(),
  };
}
