import { and, eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { creditNotes, invoices } from "@/db/schema";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { changeCustomerBalance } from "@/lib/customer-balance/service";
import { loadInvoice, lockInvoice, markPaid, ofAccount } from "@/lib/invoices/core";
import type { InvoiceRow } from "@/lib/invoices/serialize";
import { createRefund } from "@/lib/refunds/service";
import { sha256Hex } from "@/lib/invoices/pdf/render";
import { one } from "@/lib/rows";
import { peekCreditNoteNumber, takeCreditNoteNumber } from "./numbers";
import { renderCreditNotePdf } from "./pdf";
import { planCreditNote, type CreditNotePlan } from "./plan";
import type { CreditNoteCreate } from "./schema";
import { voidRefusal } from "./rules";
import { serializeCreditNote, type CreditNoteRow } from "./serialize";

/* Issuing and voiding credit notes (docs/credit-notes-and-balance.md); reads: read.ts. */

const REFUND_REASON = { duplicate: "duplicate", fraudulent: "fraudulent", order_change: "requested_by_customer", product_unsatisfactory: "requested_by_customer" } as const;

function rowOf(ctx: ServiceContext, invoice: InvoiceRow, input: CreditNoteCreate, plan: CreditNotePlan, id: string, number: { number: string; sequence: number }, now: Date): CreditNoteRow {
  return {
    id,
    accountId: ctx.accountId,
    invoiceId: invoice.id,
    customerId: invoice.customerId,
    number: number.number,
    numberSequence: number.sequence,
    currency: invoice.currency,
    status: "issued",
    type: plan.type,
    reason: input.reason,
    memo: input.memo ?? null,
    lines: plan.lines,
    subtotalAtom: plan.subtotalAtom,
    discountAtom: plan.discountAtom,
    taxAtom: plan.taxAtom,
    totalTaxes: plan.totalTaxes,
    totalAmountAtom: plan.totalAmountAtom,
    refundAmountAtom: plan.refundAtom,
    creditAmountAtom: plan.creditAtom,
    outOfBandAmountAtom: plan.outOfBandAtom,
    refundIds: [],
    customerBalanceTransactionId: null,
    pdfSha256: null,
    // Every credit note issued from now on prints the parties in full (lib/credit-notes/pdf.ts).
    pdfLayout: 2,
    voidedAt: null,
    created: now,
    updated: now,
  };
}

async function invoiceForInput(executor: Pick<ChangeTransaction, "select">, ctx: ServiceContext, invoiceId: string, lock: ChangeTransaction | null): Promise<InvoiceRow> {
  if (lock) {
    try {
      return await lockInvoice(lock, ctx.accountId, invoiceId);
    } catch (error) {
      if (error instanceof ServiceError && error.category === "not_found") throw validationFailed([{ field: "invoice", message: `No such invoice: '${invoiceId}'.` }]);
      throw error;
    }
  }
  const [row] = await executor.select().from(invoices).where(ofAccount(ctx.accountId, invoiceId));
  if (!row) throw validationFailed([{ field: "invoice", message: `No such invoice: '${invoiceId}'.` }]);
  return row;
}

/** The refunds of a post-payment credit note: oldest payment first, until the refund amount is met. A refund that fails refuses the whole credit note. */
async function refund(tx: ChangeTransaction, ctx: ServiceContext, plan: CreditNotePlan, reason: CreditNoteCreate["reason"]): Promise<string[]> {
  const ids: string[] = [];
  let left = plan.refundAtom;
  for (const payment of plan.payments) {
    if (left === 0) break;
    const amount = Math.min(left, payment.refundableAtom);
    const made = await createRefund({ ctx, tx, input: { payment: payment.id, amount_atom: amount, reason: REFUND_REASON[reason] } });
    // Pending: a processor's refund (Stripe) settles later, by its webhook (docs/payments.md).
    if (made.status === "failed") {
      throw new ServiceError("conflict", `The refund of payment '${payment.id}' failed (${made.failureReason ?? "declined"}); no credit note was issued and nothing changed.`);
    }
    ids.push(made.id);
    left -= amount;
  }
  return ids;
}

/**
 * Issues a credit note, in one transaction holding the invoice's lock (NOWAIT: `invoice_locked`
 * while another operation modifies it), so credit notes on one invoice take turns and their sum
 * never exceeds its total. Pre-payment: the amount due goes down (to 0: the invoice is paid).
 * Post-payment: refunds, a balance credit, and the out-of-band part recorded.
 */
export async function createCreditNote({ ctx, input }: Verb<CreditNoteCreate>): Promise<CreditNoteRow> {
  return withChangeTransaction(async (tx) => {
    const invoice = await invoiceForInput(tx, ctx, input.invoice, tx);
    const plan = await planCreditNote(tx, invoice, input);
    const now = ctx.now();
    const id = newId("creditNote");
    const refundIds = await refund(tx, ctx, plan, input.reason);
    const balance =
      plan.creditAtom > 0
        ? await changeCustomerBalance(tx, ctx, {
            customerId: invoice.customerId,
            currency: invoice.currency,
            amountAtom: plan.creditAtom,
            type: "credit_note",
            description: null,
            invoiceId: invoice.id,
            creditNoteId: id,
          })
        : null;
    // Last before the writes: the sequence row stays locked until commit.
    const number = await takeCreditNoteNumber(tx, ctx.accountId);
    const draft = { ...rowOf(ctx, invoice, input, plan, id, number, now), refundIds, customerBalanceTransactionId: balance?.id ?? null };
    const pdf = invoice.document ? await renderCreditNotePdf(draft, { number: invoice.number, document: invoice.document, reverseCharge: invoice.reverseCharge }) : null;
    const note = one(await tx.insert(creditNotes).values({ ...draft, pdfSha256: pdf ? sha256Hex(pdf) : null }).returning());

    const before = await loadInvoice(tx, invoice);
    const credited = one(
      await tx
        .update(invoices)
        .set(
          plan.type === "pre_payment"
            ? {
                prePaymentCreditNotesAmountAtom: invoice.prePaymentCreditNotesAmountAtom + plan.totalAmountAtom,
                dueAmountAtom: invoice.dueAmountAtom - plan.totalAmountAtom,
                updated: now,
              }
            : { postPaymentCreditNotesAmountAtom: invoice.postPaymentCreditNotesAmountAtom + plan.totalAmountAtom, updated: now },
        )
        .where(eq(invoices.id, invoice.id))
        .returning(),
    );
    await emitEvent(tx, ctx, { type: "credit_note.created", aggregateId: note.id, data: serializeCreditNote(note, ctx.livemode), previousData: null });
    // Credited down to nothing due: paid, as any other way of settling it (invoice.paid).
    if (plan.type === "pre_payment" && credited.dueAmountAtom === 0) await markPaid(tx, ctx, { ...before, invoice: credited }, now);
    return note;
  });
}

/** What `createCreditNote` would issue now, stored nowhere: no number is taken, no refund made (its id is not kept). */
export async function previewCreditNote({ ctx, input }: Verb<CreditNoteCreate>): Promise<CreditNoteRow> {
  const db = await getDb();
  const invoice = await invoiceForInput(db, ctx, input.invoice, null);
  const plan = await planCreditNote(db, invoice, input);
  const number = await peekCreditNoteNumber(db, ctx.accountId);
  return rowOf(ctx, invoice, input, plan, newId("creditNote"), { number, sequence: 0 }, ctx.now());
}

/**
 * Issued → void, for a pre-payment credit note of an invoice still open or uncollectible: the
 * amount due goes back up by its total. A post-payment credit note moved money (a refund, a balance
 * credit) and cannot be undone by voiding it (409), nor can one whose invoice has since been paid.
 */
export async function voidCreditNote({ ctx, input }: Verb<{ id: string }>): Promise<CreditNoteRow> {
  return withChangeTransaction(async (tx) => {
    const [found] = await tx
      .select({ invoiceId: creditNotes.invoiceId })
      .from(creditNotes)
      .where(and(eq(creditNotes.accountId, ctx.accountId), eq(creditNotes.id, input.id)));
    if (!found) throw notFound("credit note", input.id);
    // The invoice first, as issuing does, then the credit note: one lock order.
    const invoice = await lockInvoice(tx, ctx.accountId, found.invoiceId);
    const note = one(await tx.select().from(creditNotes).where(eq(creditNotes.id, input.id)).for("update"));
    const refusal = voidRefusal({ status: note.status, type: note.type, invoiceStatus: invoice.status });
    if (refusal === "already_void") throw new ServiceError("conflict", `Credit note '${note.id}' is already void.`);
    if (refusal === "post_payment") {
      throw new ServiceError("conflict", `Credit note '${note.id}' was issued after payment (refunded or credited); it cannot be voided.`);
    }
    if (refusal === "invoice_settled") {
      throw new ServiceError("conflict", `Invoice '${invoice.id}' is ${invoice.status}; a credit note can be voided only while its invoice is open or uncollectible.`);
    }
    const now = ctx.now();
    await tx
      .update(invoices)
      .set({
        prePaymentCreditNotesAmountAtom: invoice.prePaymentCreditNotesAmountAtom - note.totalAmountAtom,
        dueAmountAtom: invoice.dueAmountAtom + note.totalAmountAtom,
        updated: now,
      })
      .where(eq(invoices.id, invoice.id));
    const voided = one(await tx.update(creditNotes).set({ status: "void", voidedAt: now, updated: now }).where(eq(creditNotes.id, note.id)).returning());
    await emitEvent(tx, ctx, {
      type: "credit_note.voided",
      aggregateId: note.id,
      data: serializeCreditNote(voided, ctx.livemode),
      previousData: serializeCreditNote(note, ctx.livemode),
    });
    return voided;
  });
}
