import type { ServiceContext } from "@/lib/context";
import type { ChangeTransaction } from "@/lib/events/transaction";

/**
 * What an invoice leaving dunning tells its subscription (lib/subscriptions/collection-status.ts
 * `settleSubscriptionOf`: a past_due subscription with no other invoice in dunning is active
 * again), handed in at start-up (lib/server/wiring.ts): subscriptions make and collect invoices,
 * so invoices importing subscriptions back would tie the two folders into one cycle. Kept on
 * globalThis because Next.js bundles a module more than once per process.
 */
type SettleSubscription = (tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string, subscriptionId: string) => Promise<void>;

const SETTLE = Symbol.for("billing.invoices.settled");
type GlobalWithSettle = typeof globalThis & { [SETTLE]?: SettleSubscription };

export function registerSubscriptionSettlement(settle: SettleSubscription): void {
  (globalThis as GlobalWithSettle)[SETTLE] = settle;
}

/** In the transaction that settled the invoice; an invoice of no subscription tells nobody. */
export async function invoiceSettled(tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string, subscriptionId: string | null): Promise<void> {
  if (subscriptionId === null) return;
  const settle = (globalThis as GlobalWithSettle)[SETTLE];
  if (!settle) throw new Error("No subscription settlement registered: the entry point must call wire() (lib/server/wiring.ts) first.");
  await settle(tx, ctx, invoiceId, subscriptionId);
}
