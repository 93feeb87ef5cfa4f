import { eq, sql } from "drizzle-orm";
import { accounts, invoiceNumberSequences } from "@/db/schema";
import { effectiveInvoicePrefix } from "@/lib/account-settings/prefix";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";

/** `ACME-0042`: the prefix, a dash, the sequence zero-padded to at least 4 digits. */
export function formatInvoiceNumber(prefix: string, sequence: number): string {
  return `${prefix}-${String(sequence).padStart(4, "0")}`;
}

/**
 * The account's next invoice number, taken inside the finalizing transaction. The upsert locks the
 * account's sequence row until that transaction ends, so concurrent finalizers of one account take
 * turns, and a finalization that rolls back gives its number back: numbers are gapless and unique
 * (docs/rules/invoices.md, "Invoices and tax"). Finalizing different accounts does not contend.
 */
export async function takeInvoiceNumber(tx: ChangeTransaction, accountId: string): Promise<{ number: string; sequence: number }> {
  const { lastValue } = one(
    await tx
      .insert(invoiceNumberSequences)
      .values({ accountId, lastValue: 1 })
      .onConflictDoUpdate({ target: invoiceNumberSequences.accountId, set: { lastValue: sql`${invoiceNumberSequences.lastValue} + 1` } })
      .returning({ lastValue: invoiceNumberSequences.lastValue }),
  );
  const account = one(
    await tx
      .select({ invoicePrefix: accounts.invoicePrefix, businessName: accounts.businessName, name: accounts.name })
      .from(accounts)
      .where(eq(accounts.id, accountId)),
  );
  return { number: formatInvoiceNumber(effectiveInvoicePrefix(account), lastValue), sequence: lastValue };
}
