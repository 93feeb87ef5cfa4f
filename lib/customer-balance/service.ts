import { and, eq, isNull, sql } from "drizzle-orm";
import { markCustomerForAlerts } from "@/lib/alert-marks/mark";
import type { z } from "zod";
import { getDb, type Executor } from "@/db/client";
import { pageOf } from "@/db/page";
import { customerBalanceTransactions, customers } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import type { BalanceTransactionCreateInput, BALANCE_TRANSACTION_TYPES } from "./schema";
import { serializeBalanceTransaction, type BalanceTransactionRow } from "./serialize";

/*
 * The customer balance: `customers.balances` (per currency) and its ledger. Every change is one
 * ledger row written with the customer row locked, in the change's transaction, so the ledger of a
 * customer and currency always sums to the balance (docs/credit-notes-and-balance.md).
 */

export type BalanceChange = {
  customerId: string;
  currency: string;
  amountAtom: number;
  type: (typeof BALANCE_TRANSACTION_TYPES)[number];
  description: string | null;
  invoiceId?: string | null;
  creditNoteId?: string | null;
  /** A `proration` credit's change request (`scr_…`). */
  changeRequestId?: string | null;
};

/** The customer row, locked until the transaction ends (every balance change takes this lock first). */
async function lockCustomer(tx: ChangeTransaction, accountId: string, customerId: string, options: { deleted: boolean }) {
  const [row] = await tx
    .select({ id: customers.id, balances: customers.balances })
    .from(customers)
    .where(and(eq(customers.accountId, accountId), eq(customers.id, customerId), options.deleted ? undefined : isNull(customers.deletedAt)))
    .for("update");
  return row;
}

async function writeChange(tx: ChangeTransaction, ctx: ServiceContext, balances: Record<string, number>, change: BalanceChange): Promise<BalanceTransactionRow> {
  const ending = (balances[change.currency] ?? 0) + change.amountAtom;
  if (!Number.isSafeInteger(ending)) throw new RangeError("A customer balance left the safe integer range.");
  await tx
    .update(customers)
    .set({ balances: { ...balances, [change.currency]: ending } })
    .where(eq(customers.id, change.customerId));
  // The credit_balance alerts of the customer are evaluated again (lib/alert-marks).
  await markCustomerForAlerts(tx, ctx.accountId, change.customerId, ctx.now());
  const row = one(
    await tx
      .insert(customerBalanceTransactions)
      .values({
        id: newId("customerBalanceTransaction"),
        accountId: ctx.accountId,
        customerId: change.customerId,
        currency: change.currency,
        amountAtom: change.amountAtom,
        endingBalanceAtom: ending,
        type: change.type,
        description: change.description,
        invoiceId: change.invoiceId ?? null,
        creditNoteId: change.creditNoteId ?? null,
        changeRequestId: change.changeRequestId ?? null,
        created: ctx.now(),
      })
      .returning(),
  );
  await emitEvent(tx, ctx, {
    type: "customer.balance_transaction.created",
    aggregateId: row.id,
    data: serializeBalanceTransaction(row, ctx.livemode),
    previousData: null,
  });
  return row;
}

/** One change of a customer's balance in the caller's transaction (credit notes, finalization, a change request's proration credit). */
export async function changeCustomerBalance(tx: ChangeTransaction, ctx: ServiceContext, change: BalanceChange): Promise<BalanceTransactionRow> {
  const customer = await lockCustomer(tx, ctx.accountId, change.customerId, { deleted: true });
  if (!customer) throw notFound("customer", change.customerId);
  return writeChange(tx, ctx, customer.balances, change);
}

/**
 * At finalization, before any payment is attempted: the customer's balance in the invoice's
 * currency meets its total. A credit (positive) lowers the amount due, at most to 0, and what is
 * left stays on the balance; a debit (negative) is added to the amount due whole. Answers the
 * balance before and after, and what the invoice's amount due becomes.
 */
export async function applyBalanceToInvoice(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  invoice: { id: string; customerId: string; currency: string; totalAtom: number },
): Promise<{ startingAtom: number; endingAtom: number; dueAtom: number }> {
  const customer = await lockCustomer(tx, ctx.accountId, invoice.customerId, { deleted: true });
  const startingAtom = customer?.balances[invoice.currency] ?? 0;
  const { appliedAtom, ...result } = balanceApplied(startingAtom, invoice.totalAtom);
  if (customer && appliedAtom !== 0) {
    await writeChange(tx, ctx, customer.balances, {
      customerId: invoice.customerId,
      currency: invoice.currency,
      amountAtom: -appliedAtom,
      type: "applied_to_invoice",
      description: null,
      invoiceId: invoice.id,
    });
  }
  return result;
}

/**
 * A void gives back what the invoice's finalization took from (or added to) the balance: one
 * `invoice_voided` row, the opposite of its `applied_to_invoice` rows, in the void's transaction,
 * so the balance is what it would be had the invoice never been finalized (a debit carried onto
 * the invoice is owed again; a credit drawn by it is the customer's again). Nothing when the
 * invoice applied nothing.
 */
export async function reverseBalanceApplied(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  invoice: { id: string; customerId: string; currency: string },
): Promise<BalanceTransactionRow | null> {
  const customer = await lockCustomer(tx, ctx.accountId, invoice.customerId, { deleted: true });
  if (!customer) return null;
  const [row] = await tx
    .select({ applied: sql<string>`coalesce(sum(${customerBalanceTransactions.amountAtom}), 0)::text` })
    .from(customerBalanceTransactions)
    .where(
      and(
        eq(customerBalanceTransactions.invoiceId, invoice.id),
        eq(customerBalanceTransactions.currency, invoice.currency),
        eq(customerBalanceTransactions.type, "applied_to_invoice"),
      ),
    );
  const ledgerSumAtom = Number(row?.applied ?? 0);
  if (ledgerSumAtom === 0) return null;
  return writeChange(tx, ctx, customer.balances, {
    customerId: invoice.customerId,
    currency: invoice.currency,
    amountAtom: -ledgerSumAtom,
    type: "invoice_voided",
    description: null,
    invoiceId: invoice.id,
  });
}

/**
 * The one rule of finalization (and of the previews that announce it): a credit (positive) lowers
 * the amount due, at most to 0, and what is left stays; a debit (negative) is added whole.
 */
export function balanceApplied(startingAtom: number, totalAtom: number): { startingAtom: number; appliedAtom: number; endingAtom: number; dueAtom: number } {
  const appliedAtom = startingAtom > 0 ? Math.min(startingAtom, totalAtom) : startingAtom;
  return { startingAtom, appliedAtom, endingAtom: startingAtom - appliedAtom, dueAtom: totalAtom - appliedAtom };
}

/** The customer's balance in `currency` as it stands (0 when none), read without a lock: for previews. */
export async function balanceOf(executor: Executor, customerId: string, currency: string): Promise<number> {
  const [row] = await executor.select({ balances: customers.balances }).from(customers).where(eq(customers.id, customerId));
  return row?.balances[currency] ?? 0;
}

/** A manual adjustment (`POST /customers/{id}/balance-transactions`). */
export async function adjustCustomerBalance({
  ctx,
  input,
}: Verb<{ customerId: string; adjustment: z.output<typeof BalanceTransactionCreateInput> }>): Promise<BalanceTransactionRow> {
  return withChangeTransaction(async (tx) => {
    const customer = await lockCustomer(tx, ctx.accountId, input.customerId, { deleted: false });
    if (!customer) throw notFound("customer", input.customerId);
    const { amount_atom: amountAtom, currency, description } = input.adjustment;
    return writeChange(tx, ctx, customer.balances, { customerId: customer.id, currency, amountAtom, type: "adjustment", description });
  });
}

export async function listBalanceTransactions({
  ctx,
  input,
}: Verb<Page & { customerId: string; currency?: string }>): Promise<{ rows: BalanceTransactionRow[] } & PageInfo> {
  const db = await getDb();
  const [customer] = await db
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customerId), isNull(customers.deletedAt)));
  if (!customer) throw notFound("customer", input.customerId);
  const where = and(
    eq(customerBalanceTransactions.customerId, customer.id),
    input.currency ? eq(customerBalanceTransactions.currency, input.currency) : undefined,
  );
  return pageOf(customerBalanceTransactions, where, input);
}
