"use client";

import { useState } from "react";
import type { CreditNote, Invoice } from "@/components/api-types";
import { ApiForm, toAtoms, useBrowserLocale } from "@/components/objects/api-form";
import { CREDIT_NOTE_REASONS } from "@/lib/credit-notes/statuses";
import { CreditNoteLinesTable, creditLines, lineName, useLinesPreview } from "./credit-note-lines";
import { creditNoteTotals } from "./credit-note-totals";

/**
 * "Issue a credit note": by amount (tax included) or by lines (a quantity or an amount per line),
 * a reason; on a paid invoice, how it is settled (refund, balance credit, out of band; together
 * the total). The same `POST /credit-notes` merchants' servers call; live totals explain (and hold
 * the button while the split does not add up), the API refuses what does not add up.
 */
export function IssueCreditNote({
  accountId,
  invoice,
  notes,
  creditable,
  invalidate,
  money,
}: {
  accountId: string;
  invoice: Invoice;
  notes: readonly CreditNote[];
  creditable: number;
  invalidate: readonly (readonly unknown[])[];
  money: (atoms: number) => string;
}) {
  const paid = invoice.status === "paid";
  const locale = useBrowserLocale();
  // The form's values, mirrored here for the preview of a lines selection.
  const [values, setValues] = useState<Record<string, string>>({});
  const preview = useLinesPreview(accountId, invoice, values, locale);
  const byAmount = (typed: Record<string, string>) => typed.mode !== "lines";
  return (
    <ApiForm
      label="Issue a credit note"
      submitLabel="Issue credit note"
      operation="createCreditNote"
      params={{ path: { account_id: accountId } }}
      invalidate={invalidate}
      onValues={setValues}
      // The values are as sent until the next change, so the body's N-th line is found again.
      fieldName={(field, typed) => lineName(field, creditLines(typed, invoice.lines, invoice.currency, locale, false), invoice.lines)}
      confirm={{
        title: "Issue this credit note?",
        body: paid ? "The refund part is refunded to the customer's payment now; the credit part goes to their balance." : "The invoice's amount due goes down by its total.",
        label: "Issue",
      }}
      summary={creditNoteTotals({ currency: invoice.currency, paid, creditableAtom: creditable, dueAtom: invoice.due_amount_atom, money, preview })}
      confirmation={(note) => `Issued ${note.number} for ${money(note.total_amount_atom)}.`}
      extra={(typed, set) =>
        byAmount(typed) ? null : (
          <CreditNoteLinesTable lines={invoice.lines} notes={notes} currency={invoice.currency} locale={locale} values={typed} set={set} money={money} />
        )
      }
      fields={[
        {
          name: "mode",
          label: "Issue by",
          kind: "select",
          initial: "amount",
          options: [
            { value: "amount", label: "By amount" },
            { value: "lines", label: "By lines" },
          ],
          errorFields: ["lines"],
        },
        {
          name: "amount",
          label: "Amount (tax included)",
          kind: "money",
          currency: invoice.currency,
          required: true,
          hint: `At most ${money(Math.min(creditable, paid ? creditable : invoice.due_amount_atom))}.`,
          errorFields: ["amount_atom", "lines"],
          when: byAmount,
        },
        { name: "reason", label: "Reason", kind: "select", initial: "order_change", options: CREDIT_NOTE_REASONS.map((value) => ({ value, label: value.replaceAll("_", " ") })) },
        { name: "memo", label: "Memo (optional)" },
        ...(paid
          ? [
              { name: "refund", label: "Refund to the payment", kind: "money" as const, currency: invoice.currency, errorFields: ["refund_amount_atom"] },
              { name: "credit", label: "Credit to the customer's balance", kind: "money" as const, currency: invoice.currency, errorFields: ["credit_amount_atom"] },
              { name: "out_of_band", label: "Settled out of band", kind: "money" as const, currency: invoice.currency, errorFields: ["out_of_band_amount_atom"] },
            ]
          : []),
      ]}
      toBody={(typed, { locale: typedIn }) => {
        const atoms = (value: string | undefined) => (value?.trim() ? toAtoms(value, invoice.currency, typedIn) : undefined);
        const split = paid
          ? { refund_amount_atom: atoms(typed.refund), credit_amount_atom: atoms(typed.credit), out_of_band_amount_atom: atoms(typed.out_of_band) }
          : {};
        return {
          invoice: invoice.id,
          ...(byAmount(typed) ? { amount_atom: atoms(typed.amount) } : { lines: creditLines(typed, invoice.lines, invoice.currency, typedIn, false) }),
          reason: typed.reason,
          ...(typed.memo ? { memo: typed.memo } : {}),
          ...Object.fromEntries(Object.entries(split).filter(([, value]) => value !== undefined)),
        };
      }}
    />
  );
}
