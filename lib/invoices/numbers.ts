import { eq, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { accounts, creditNoteNumberSequences, invoiceNumberSequences } from "@/db/schema";
import { effectiveInvoicePrefix } from "@/lib/account-settings/prefix";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";

/*
 * Document numbers, one gapless sequence per account and kind: invoices (`ACME-0042`) and credit
 * notes (`ACME-CN-0007`, lib/credit-notes/numbers.ts) share the technique and the account's prefix.
 */

/** A kind of numbered document: its sequence table and what goes between the prefix and the number. */
export type NumberSequence = {
  table: typeof invoiceNumberSequences | typeof creditNoteNumberSequences;
  /** `CN` for credit notes; none for invoices. */
  infix: string | null;
};

export const INVOICE_NUMBERS: NumberSequence = { table: invoiceNumberSequences, infix: null };

/** The prefix, (the infix,) a dash, the sequence zero-padded to at least 4 digits. */
export function formatDocumentNumber(sequence: NumberSequence, prefix: string, value: number): string {
  return `${prefix}-${sequence.infix ? `${sequence.infix}-` : ""}${String(value).padStart(4, "0")}`;
}

/** `ACME-0042`: the prefix, a dash, the sequence zero-padded to at least 4 digits. */
export function formatInvoiceNumber(prefix: string, sequence: number): string {
  return formatDocumentNumber(INVOICE_NUMBERS, prefix, sequence);
}

/** The account's columns its documents' prefix is made of (effectiveInvoicePrefix). */
const PREFIX_COLUMNS = { invoicePrefix: accounts.invoicePrefix, businessName: accounts.businessName, name: accounts.name };
type PrefixInputs = Parameters<typeof effectiveInvoicePrefix>[0];

async function prefixOf(executor: Executor, accountId: string): Promise<string> {
  return effectiveInvoicePrefix(one(await executor.select(PREFIX_COLUMNS).from(accounts).where(eq(accounts.id, accountId))));
}

/** PREFIX_COLUMNS as scalar subselects, for a statement on another table to return (the cast: Object.fromEntries keeps no key's type). */
function prefixSubselects(accountId: string): { [K in keyof PrefixInputs]: SQL<PrefixInputs[K]> } {
  return Object.fromEntries(
    Object.entries(PREFIX_COLUMNS).map(([key, column]) => [key, sql`(select ${column} from ${accounts} where ${accounts.id} = ${accountId})`]),
  ) as { [K in keyof PrefixInputs]: SQL<PrefixInputs[K]> };
}

/**
 * The account's next number of the kind, taken inside the transaction that issues the document.
 * The upsert locks the account's sequence row until that transaction ends, so concurrent issuers
 * of one account take turns, and an issue that rolls back gives its number back: numbers are
 * gapless and unique (docs/rules/invoices.md, "Invoices and tax"). Different accounts do not contend.
 */
export async function takeNumber(tx: ChangeTransaction, sequence: NumberSequence, accountId: string): Promise<{ number: string; sequence: number }> {
  const { table } = sequence;
  // The account's prefix read by the upsert itself: one round trip, and the sequence row's lock is
  // taken no earlier than before.
  const { lastValue, ...account } = one(
    await tx
      .insert(table)
      .values({ accountId, lastValue: 1 })
      .onConflictDoUpdate({ target: table.accountId, set: { lastValue: sql`${table.lastValue} + 1` } })
      .returning({ lastValue: table.lastValue, ...prefixSubselects(accountId) }),
  );
  return { number: formatDocumentNumber(sequence, effectiveInvoicePrefix(account), lastValue), sequence: lastValue };
}

/** The number the next document of the kind would take (a preview: nothing is taken). */
export async function peekNumber(executor: Executor, sequence: NumberSequence, accountId: string): Promise<string> {
  const { table } = sequence;
  const [row] = await executor.select({ lastValue: table.lastValue }).from(table).where(eq(table.accountId, accountId));
  return formatDocumentNumber(sequence, await prefixOf(executor, accountId), (row?.lastValue ?? 0) + 1);
}

/** The account's next invoice number, in the finalizing transaction. */
export const takeInvoiceNumber = (tx: ChangeTransaction, accountId: string) => takeNumber(tx, INVOICE_NUMBERS, accountId);
