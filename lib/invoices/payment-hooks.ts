import { eq } from "drizzle-orm";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { invoices } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { INVOICE_ACTION_FROM } from "./rules";
import { assertStatus, emit, loadInvoice, lockInvoice, markPaid, ofAccount } from "./core";
import { invoiceCollectionFailed } from "./settled";

/*
 * What payments and refunds tell invoices, inside their own transaction; this module never
 * imports them. Refunds call it directly; payments get applyPaymentIntentOutcome handed in at
 * start-up (lib/payments/invoice-outcome.ts), because invoices collect through payments.
 */

/** How a confirmation (or capture) of an invoice's payment intent ended. */
export type PaymentIntentOutcome =
  | { kind: "succeeded"; receivedAtom: number }
  | { kind: "partially_funded"; receivedAtom: number }
  | { kind: "payment_failed" }
  | { kind: "requires_action" };

/**
 * Applies an invoice payment intent's outcome to its invoice, in the intent's transaction, with the
 * invoice locked (NOWAIT: `invoice_locked` while another operation holds it; the transaction then
 * rolls back, so the intent is unchanged too). `receivedAtom` is what this confirmation collected.
 *
 * - received the whole due amount → paid (`invoice.paid`, `invoice.payment_succeeded`);
 * - received part of it → still open, `paid_amount_atom` up and `due_amount_atom` down by it,
 *   no invoice event (the catalogue has no `invoice.updated`; `payment_intent.partially_funded`
 *   and `payment.succeeded` record it);
 * - declined → unchanged, `invoice.payment_failed`;
 * - requires action → unchanged, `invoice.payment_action_required`.
 *
 * An invoice that is no longer open or uncollectible (paid another way, voided) refuses (409), as
 * does a payment that would exceed what is due: nothing is collected twice.
 *
 * An outcome short of paid, of an invoice whose automatic collection has begun (`attempt_count`
 * > 0), is a failed attempt for its subscription (`invoiceCollectionFailed`): whenever it arrives,
 * in the attempt's transaction (the sandbox) or after it (a network processor's answer).
 */
export async function applyPaymentIntentOutcome(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  invoiceId: string,
  outcome: PaymentIntentOutcome,
): Promise<void> {
  const invoice = await lockInvoice(tx, ctx.accountId, invoiceId);
  assertStatus(invoice, "paid", INVOICE_ACTION_FROM.pay);
  const before = await loadInvoice(tx, invoice);
  const attemptFailed = () => (invoice.attemptCount > 0 ? invoiceCollectionFailed(tx, ctx, invoice.id, invoice.subscriptionId) : undefined);
  switch (outcome.kind) {
    case "payment_failed":
      await emit(tx, ctx, "invoice.payment_failed", before, null);
      return attemptFailed();
    case "requires_action":
      await emit(tx, ctx, "invoice.payment_action_required", before, null);
      return attemptFailed();
    case "succeeded":
    case "partially_funded": {
      if (outcome.receivedAtom > invoice.dueAmountAtom) {
        throw new ServiceError(
          "conflict",
          `Invoice '${invoice.id}' has ${invoice.dueAmountAtom} due; this payment of ${outcome.receivedAtom} would exceed it. Cancel this payment intent.`,
        );
      }
      const now = ctx.now();
      if (outcome.receivedAtom === invoice.dueAmountAtom) {
        await markPaid(tx, ctx, before, now);
        return;
      }
      await tx
        .update(invoices)
        .set({
          paidAmountAtom: invoice.paidAmountAtom + outcome.receivedAtom,
          dueAmountAtom: invoice.dueAmountAtom - outcome.receivedAtom,
          updated: now,
        })
        .where(eq(invoices.id, invoice.id));
      return attemptFailed();
    }
  }
}

/**
 * A succeeded refund of a payment of an invoice's intent: `invoice.refunded` with the invoice as it
 * stands. As in Stripe the invoice stays paid and its amounts are unchanged (the refund belongs to
 * the payment); the event only tells the invoice's listeners. A plain read, not a lock: nothing of
 * the invoice changes, so a refund never waits for or conflicts with an invoice operation.
 */
export async function recordInvoiceRefund(tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string): Promise<void> {
  const [invoice] = await tx.select().from(invoices).where(ofAccount(ctx.accountId, invoiceId));
  if (!invoice) return;
  await emit(tx, ctx, "invoice.refunded", await loadInvoice(tx, invoice), null);
}
