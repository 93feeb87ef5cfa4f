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

/**
 * What a failed automatic collection attempt tells its subscription (lib/subscriptions/dunning.ts
 * `automaticCollectionFailed`: past_due, or giving up after the last retry), handed in at start-up
 * like the settlement above. A network processor answers after the attempt's transaction has
 * committed, so the renewal or the dunning retry that made the attempt cannot decide this itself:
 * the outcome, applied whenever it arrives, does.
 */
type CollectionFailed = (tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string, subscriptionId: string) => Promise<void>;

const FAILED = Symbol.for("billing.invoices.collection-failed");
type GlobalWithFailed = typeof globalThis & { [FAILED]?: CollectionFailed };

export function registerCollectionFailure(failed: CollectionFailed): void {
  (globalThis as GlobalWithFailed)[FAILED] = failed;
}

/** In the transaction that applied the failed outcome; an invoice of no subscription tells nobody. */
export async function invoiceCollectionFailed(tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string, subscriptionId: string | null): Promise<void> {
  if (subscriptionId === null) return;
  const failed = (globalThis as GlobalWithFailed)[FAILED];
  if (!failed) throw new Error("No collection failure registered: the entry point must call wire() (lib/server/wiring.ts) first.");
  await failed(tx, ctx, invoiceId, subscriptionId);
}
