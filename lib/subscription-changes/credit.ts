import type { ServiceContext } from "@/lib/context";
import { changeCustomerBalance } from "@/lib/customer-balance/service";
import type { BalanceTransactionRow } from "@/lib/customer-balance/serialize";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { prorationCreditDescription, subscriptionNameOf } from "@/lib/invoices/descriptions";
import type { SubscriptionRow } from "@/lib/subscriptions/serialize";
import type { ChangeRequestRow } from "./serialize";

/**
 * A net decrease prorated with `create_prorations` or `always_invoice` (`proration_amount_atom`
 * < 0): its unused time is credited to the customer's balance, one `proration` balance transaction
 * linked to the change request, with its `customer.balance_transaction.created`, in the caller's
 * transaction (the one applying the last step, with the request locked). Null when nothing is
 * credited, or when it already was.
 */
export async function creditProration(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  locked: ChangeRequestRow,
  subscription: SubscriptionRow,
): Promise<BalanceTransactionRow | null> {
  if (locked.prorationAmountAtom >= 0 || locked.balanceTransactionId !== null) return null;
  return changeCustomerBalance(tx, ctx, {
    customerId: subscription.customerId,
    currency: locked.currency,
    amountAtom: -locked.prorationAmountAtom,
    type: "proration",
    description: prorationCreditDescription(await subscriptionNameOf(tx, subscription.id), locked.prorationDate, subscription.currentPeriodEnd),
    changeRequestId: locked.id,
  });
}
