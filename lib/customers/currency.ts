import { and, count, eq, inArray, isNotNull, isNull, notInArray } from "drizzle-orm";
import { customers, invoices, subscriptions } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import { customerState, type CustomerRow } from "./serialize";

/*
 * A customer's currency (docs/billing.md, "Currency options"): the currency their subscriptions,
 * checkout and portal bill in. Set on creation, or fixed by their first invoice or subscription;
 * it changes only while nothing is billed in it (no draft or open invoice, no subscription that is
 * not cancelled, a zero balance in every currency).
 */

/** What keeps the customer's currency as it is: the open things, in words; [] when it may change. */
export async function currencyHolds(tx: ChangeTransaction, customer: Pick<CustomerRow, "id" | "balances">): Promise<string[]> {
  const [open] = await tx
    .select({ n: count() })
    .from(invoices)
    .where(and(eq(invoices.customerId, customer.id), inArray(invoices.status, ["draft", "open"])));
  const [live] = await tx
    .select({ n: count() })
    .from(subscriptions)
    .where(and(eq(subscriptions.customerId, customer.id), notInArray(subscriptions.status, ["cancelled"])));
  const balances = Object.entries(customer.balances).filter(([, atoms]) => atoms !== 0);
  const holds: string[] = [];
  if ((open?.n ?? 0) > 0) holds.push(`${open!.n} draft or open invoice${open!.n === 1 ? "" : "s"}`);
  if ((live?.n ?? 0) > 0) holds.push(`${live!.n} subscription${live!.n === 1 ? "" : "s"} not cancelled`);
  if (balances.length > 0) holds.push(`a balance of ${balances.map(([code, atoms]) => `${atoms} ${code} atoms`).join(", ")}`);
  return holds;
}

/** The 409 of a currency change the customer's open billing holds. */
export function currencyHeld(customer: Pick<CustomerRow, "id" | "currency">, wanted: string, holds: string[]): ServiceError {
  return new ServiceError(
    "conflict",
    `Customer '${customer.id}' is billed in ${customer.currency ?? "no currency yet"}; it cannot become ${wanted} while they have ${holds.join(" and ")}. Settle or cancel them first.`,
  );
}

/**
 * The customer (live, of the account) locked for billing them in `currency`: for share while their
 * currency is set (a concurrent deletion or currency change waits), for update while it is not
 * yet (two first invoices fix it one after the other, never deadlocking on a lock upgrade), then
 * fixed to `currency` when it had none. Null when there is no such customer.
 */
export async function lockCustomerToBill(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  customerId: string,
  currency: string,
): Promise<Pick<CustomerRow, "id" | "currency"> | null> {
  const live = and(eq(customers.accountId, ctx.accountId), eq(customers.id, customerId), isNull(customers.deletedAt));
  const row = { id: customers.id, currency: customers.currency };
  // Most customers are billed in a currency already: one statement. A row it does not return is
  // not locked, so the lock for update below is never an upgrade of this one.
  const [billed] = await tx.select(row).from(customers).where(and(live, isNotNull(customers.currency))).for("share");
  if (billed) return billed;
  // No currency yet (or it was set meanwhile: then this stronger lock is as good), or no such customer.
  const [customer] = await tx.select(row).from(customers).where(live).for("update");
  if (!customer) return null;
  if (customer.currency === null) await fixCustomerCurrency(tx, ctx, customer.id, currency);
  return customer;
}

/**
 * Fixes the customer's currency to `currency` when they have none yet (their first invoice or
 * subscription), with `customer.updated`; a no-op when it is already `currency`. In the caller's
 * transaction, so the invoice or subscription and the currency it fixed commit together.
 */
export async function fixCustomerCurrency(tx: ChangeTransaction, ctx: ServiceContext, customerId: string, currency: string): Promise<void> {
  const [before] = await tx
    .select()
    .from(customers)
    .where(and(eq(customers.id, customerId), isNull(customers.currency)))
    .for("update");
  if (!before) return;
  const after = one(await tx
    .update(customers)
    .set({ currency, updated: ctx.now() })
    .where(eq(customers.id, customerId))
    .returning());
  await emitEvent(tx, ctx, {
    type: "customer.updated",
    aggregateId: customerId,
    data: customerState(after, ctx.livemode),
    previousData: customerState(before, ctx.livemode),
  });
}
