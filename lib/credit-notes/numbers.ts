import { eq, sql } from "drizzle-orm";
import { accounts, creditNoteNumberSequences } from "@/db/schema";
import { effectiveInvoicePrefix } from "@/lib/account-settings/prefix";
import type { Executor } from "@/db/client";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";

/** `ACME-CN-0007`: the invoice prefix, `CN`, the sequence zero-padded to at least 4 digits. */
export function formatCreditNoteNumber(prefix: string, sequence: number): string {
  return `${prefix}-CN-${String(sequence).padStart(4, "0")}`;
}

async function prefixOf(executor: Executor, accountId: string): Promise<string> {
  const account = one(
    await executor
      .select({ invoicePrefix: accounts.invoicePrefix, businessName: accounts.businessName, name: accounts.name })
      .from(accounts)
      .where(eq(accounts.id, accountId)),
  );
  return effectiveInvoicePrefix(account);
}

/**
 * The account's next credit note number, in the issuing transaction: the invoice numbers'
 * technique (lib/invoices/numbers.ts) on a sequence of its own, so numbers are gapless and unique
 * per account and a credit note that rolls back gives its number back.
 */
export async function takeCreditNoteNumber(tx: ChangeTransaction, accountId: string): Promise<{ number: string; sequence: number }> {
  const { lastValue } = one(
    await tx
      .insert(creditNoteNumberSequences)
      .values({ accountId, lastValue: 1 })
      .onConflictDoUpdate({ target: creditNoteNumberSequences.accountId, set: { lastValue: sql`${creditNoteNumberSequences.lastValue} + 1` } })
      .returning({ lastValue: creditNoteNumberSequences.lastValue }),
  );
  return { number: formatCreditNoteNumber(await prefixOf(tx, accountId), lastValue), sequence: lastValue };
}

/** The number the next credit note would take (a preview: nothing is taken). */
export async function peekCreditNoteNumber(executor: Executor, accountId: string): Promise<string> {
  const [row] = await executor
    .select({ lastValue: creditNoteNumberSequences.lastValue })
    .from(creditNoteNumberSequences)
    .where(eq(creditNoteNumberSequences.accountId, accountId));
  return formatCreditNoteNumber(await prefixOf(executor, accountId), (row?.lastValue ?? 0) + 1);
}
