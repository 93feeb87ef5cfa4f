import { creditNoteNumberSequences } from "@/db/schema";
import type { Executor } from "@/db/client";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { formatDocumentNumber, peekNumber, takeNumber, type NumberSequence } from "@/lib/invoices/numbers";

/** Credit notes number on a sequence of their own, with the invoices' prefix and technique (lib/invoices/numbers.ts). */
const CREDIT_NOTE_NUMBERS: NumberSequence = { table: creditNoteNumberSequences, infix: "CN" };

/** `ACME-CN-0007`: the invoice prefix, `CN`, the sequence zero-padded to at least 4 digits. */
export function formatCreditNoteNumber(prefix: string, sequence: number): string {
  return formatDocumentNumber(CREDIT_NOTE_NUMBERS, prefix, sequence);
}

/** The account's next credit note number, in the issuing transaction: gapless and unique per account. */
export const takeCreditNoteNumber = (tx: ChangeTransaction, accountId: string) => takeNumber(tx, CREDIT_NOTE_NUMBERS, accountId);

/** The number the next credit note would take (a preview: nothing is taken). */
export const peekCreditNoteNumber = (executor: Executor, accountId: string) => peekNumber(executor, CREDIT_NOTE_NUMBERS, accountId);
