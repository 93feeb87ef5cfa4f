import postgres from "postgres";
import { checkAccountMoney, type Difference } from "./checks";
import { accountExists, loadAccountMoney } from "./load";

export type { Difference } from "./checks";

/*
 * The money audit from outside (issue #42, `npm run audit:money`): every invoice, credit note,
 * customer balance and payment of an account recomputed from its event trail and the billing
 * rules, compared with the rows. Read-only; docs/operations.md, "Auditing the money".
 */

export type AuditResult = {
  differences: Difference[];
  /** What was audited, for the summary line. */
  counts: { invoices: number; creditNotes: number; customers: number; balanceTransactions: number; paymentIntents: number; payments: number; refunds: number; events: number };
};

export class UnknownAccountError extends Error {}

/** The audit with what it covered. Throws UnknownAccountError when the database has no such account. */
export async function auditAccount({ databaseUrl, accountId }: { databaseUrl: string; accountId: string }): Promise<AuditResult> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    // One snapshot of rows and events: a change committing meanwhile is either wholly seen or not at all.
    const money = await sql.begin("isolation level repeatable read read only", async (tx) => {
      if (!(await accountExists(tx, accountId))) throw new UnknownAccountError(`No account '${accountId}' in this database.`);
      return loadAccountMoney(tx, accountId);
    });
    return {
      differences: checkAccountMoney(money),
      counts: {
        invoices: money.invoices.length,
        creditNotes: money.creditNotes.length,
        customers: money.customers.length,
        balanceTransactions: money.balanceTransactions.length,
        paymentIntents: money.paymentIntents.length,
        payments: money.payments.length,
        refunds: money.refunds.length,
        events: money.eventCount,
      },
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Every difference between the account's stored money and what its events and the rules say; none: []. */
export async function auditAccountMoney(options: { databaseUrl: string; accountId: string }): Promise<Difference[]> {
  return (await auditAccount(options)).differences;
}

const shown = (value: Difference["expected"]) => (typeof value === "string" ? value : JSON.stringify(value));

/** One difference as one line: the object, the field, expected and found, and the rule. */
export function describeDifference(difference: Difference): string {
  return `${difference.object} ${difference.field}: expected ${shown(difference.expected)}, found ${shown(difference.found)} (${difference.rule})`;
}
