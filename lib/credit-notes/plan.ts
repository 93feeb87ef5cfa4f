import { and, asc, eq, ne } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { creditNotes, paymentIntents, payments } from "@/db/schema";
import { ServiceError, validationFailed } from "@/lib/errors";
import { linesOf } from "@/lib/invoices/core";
import { creditNoteTypeFor } from "@/lib/invoices/rules";
import type { InvoiceRow } from "@/lib/invoices/serialize";
import { computeCreditNote, type CreditNoteAmounts, type LineCredited } from "./compute";
import type { CreditNoteCreate } from "./schema";

/*
 * What a credit note on this invoice would be, or why not: the one computation `POST
 * /credit-notes` (with the invoice locked) and `POST /credit-notes/preview` (without) share.
 */

export type RefundablePayment = { id: string; refundableAtom: number };

export type CreditNotePlan = CreditNoteAmounts & {
  type: "pre_payment" | "post_payment";
  refundAtom: number;
  creditAtom: number;
  outOfBandAtom: number;
  /** The invoice's payments with something left to refund, oldest first. */
  payments: RefundablePayment[];
};

async function refundablePayments(executor: Executor, invoiceId: string): Promise<RefundablePayment[]> {
  const rows = await executor
    .select({ id: payments.id, amountAtom: payments.amountAtom, refundedAtom: payments.amountRefundedAtom })
    .from(payments)
    .innerJoin(paymentIntents, eq(paymentIntents.id, payments.paymentIntentId))
    .where(and(eq(paymentIntents.invoiceId, invoiceId), ne(payments.status, "failed")))
    .orderBy(asc(payments.created), asc(payments.id));
  return rows.map((row) => ({ id: row.id, refundableAtom: row.amountAtom - row.refundedAtom })).filter((row) => row.refundableAtom > 0);
}

/** Per invoice line, what the invoice's issued (not void) credit notes by lines have credited. */
async function creditedLines(executor: Executor, invoiceId: string): Promise<Map<string, LineCredited>> {
  const notes = await executor
    .select({ lines: creditNotes.lines })
    .from(creditNotes)
    .where(and(eq(creditNotes.invoiceId, invoiceId), eq(creditNotes.status, "issued")));
  const credited = new Map<string, LineCredited>();
  for (const line of notes.flatMap((note) => note.lines)) {
    if (line.invoice_line === null) continue;
    const sum = credited.get(line.invoice_line) ?? { amountAtom: 0, quantity: 0 };
    credited.set(line.invoice_line, { amountAtom: sum.amountAtom + line.amount_atom, quantity: sum.quantity + (line.quantity ?? 0) });
  }
  return credited;
}

export async function planCreditNote(executor: Executor, invoice: InvoiceRow, input: CreditNoteCreate): Promise<CreditNotePlan> {
  const type = creditNoteTypeFor(invoice.status);
  if (type === null) {
    throw new ServiceError("conflict", `Invoice '${invoice.id}' is ${invoice.status}; only open, uncollectible or paid invoices can be credited.`);
  }
  const lines = await linesOf(executor, invoice.id);
  const credited = input.lines ? await creditedLines(executor, invoice.id) : new Map<string, LineCredited>();
  const amounts = computeCreditNote({ totalAmountAtom: invoice.totalAmountAtom, totalTaxes: invoice.totalTaxes, lines }, input, credited);
  if (Array.isArray(amounts)) throw validationFailed(amounts);
  const field = input.lines ? "lines" : "amount_atom";
  if (amounts.totalAmountAtom === 0) throw validationFailed([{ field, message: "The credit note would credit nothing." }]);
  const creditable = invoice.totalAmountAtom - invoice.prePaymentCreditNotesAmountAtom - invoice.postPaymentCreditNotesAmountAtom;
  if (amounts.totalAmountAtom > creditable) {
    throw validationFailed([{ field, message: `The credit note's total (${amounts.totalAmountAtom}) exceeds what is left to credit on the invoice (${creditable}).` }]);
  }
  const given = { refund: input.refund_amount_atom, credit: input.credit_amount_atom, outOfBand: input.out_of_band_amount_atom };
  if (type === "pre_payment") {
    const named = [["refund_amount_atom", given.refund], ["credit_amount_atom", given.credit], ["out_of_band_amount_atom", given.outOfBand]] as const;
    const extra = named.find(([, value]) => value !== undefined && value > 0);
    if (extra) throw validationFailed([{ field: extra[0], message: `Only for a paid invoice; invoice '${invoice.id}' is ${invoice.status}: the credit note lowers its amount due.` }]);
    if (amounts.totalAmountAtom > invoice.dueAmountAtom) {
      throw validationFailed([{ field, message: `The credit note's total (${amounts.totalAmountAtom}) exceeds the invoice's amount due (${invoice.dueAmountAtom}).` }]);
    }
    return { ...amounts, type, refundAtom: 0, creditAtom: 0, outOfBandAtom: 0, payments: [] };
  }
  const none = given.refund === undefined && given.credit === undefined && given.outOfBand === undefined;
  // As Stripe: nothing said, the whole credit goes to the customer's balance.
  const refundAtom = given.refund ?? 0;
  const creditAtom = none ? amounts.totalAmountAtom : (given.credit ?? 0);
  const outOfBandAtom = given.outOfBand ?? 0;
  if (refundAtom + creditAtom + outOfBandAtom !== amounts.totalAmountAtom) {
    throw validationFailed([
      {
        field: "refund_amount_atom",
        message: `refund_amount_atom + credit_amount_atom + out_of_band_amount_atom (${refundAtom + creditAtom + outOfBandAtom}) must equal the credit note's total (${amounts.totalAmountAtom}).`,
      },
    ]);
  }
  const refundable = await refundablePayments(executor, invoice.id);
  const refundableAtom = refundable.reduce((sum, payment) => sum + payment.refundableAtom, 0);
  if (refundAtom > refundableAtom) {
    throw validationFailed([{ field: "refund_amount_atom", message: `Must be at most what the invoice's payments have left to refund (${refundableAtom}).` }]);
  }
  return { ...amounts, type, refundAtom, creditAtom, outOfBandAtom, payments: refundable };
}
