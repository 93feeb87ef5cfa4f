"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import type { Invoice } from "@/components/api-types";
import { ApiForm, toAtoms } from "@/components/objects/api-form";
import { ApiAction } from "@/components/objects/confirm-action";
import { Card, ErrorBox, formatTime, Loading, StatusBadge, Table } from "@/components/ui";
import { operationPath } from "@/lib/operation-paths";
import { CREDIT_NOTE_REASONS } from "@/lib/credit-notes/statuses";
import { creditNoteTotals } from "./credit-note-totals";
import { formatMoney, invoiceQueryKeys } from "./format";

/**
 * The invoice's credit notes and "Issue a credit note": an amount (tax included) and a reason;
 * on a paid invoice, how it is settled (refund, balance credit, out of band; together the amount).
 * The same `POST /credit-notes` merchants' servers call; live totals explain (and hold the button
 * while the split does not add up), the API refuses what does not add up.
 */
export function InvoiceCreditNotes({ accountId, invoice }: { accountId: string; invoice: Invoice }) {
  const notesKey = [...invoiceQueryKeys.invoice(accountId, invoice.id), "credit-notes"] as const;
  const notes = useQuery({
    queryKey: notesKey,
    queryFn: () => dashboardCall("listCreditNotes", { path: { account_id: accountId }, query: { invoice: invoice.id, limit: 100 } }),
  });
  const creditable = invoice.total_amount_atom - invoice.pre_payment_credit_notes_amount_atom - invoice.post_payment_credit_notes_amount_atom;
  const canIssue = ["open", "uncollectible", "paid"].includes(invoice.status) && creditable > 0;
  const paid = invoice.status === "paid";
  const money = (atoms: number) => formatMoney(atoms, invoice.currency);
  const invalidate = [invoiceQueryKeys.invoices(accountId), ["events", accountId], ["customers", accountId]];
  if (invoice.status === "draft") return null;
  return (
    <Card title="Credit notes">
      <div className="space-y-4 text-sm">
        {notes.isPending ? (
          <Loading what="Loading the credit notes" />
        ) : notes.isError ? (
          <ErrorBox error={notes.error} />
        ) : notes.data.items.length === 0 ? (
          <p className="text-slate-600">No credit notes.</p>
        ) : (
          <Table label="Credit notes" head={["Number", "Status", "Type", "Total", "Refund / credit / out of band", "Issued", ""]}>
            {notes.data.items.map((note) => (
              <tr key={note.id}>
                <td className="px-3 py-2 font-mono text-xs">
                  <a href={operationPath("getCreditNotePdf", { account_id: accountId, credit_note_id: note.id })} download={`${note.number}.pdf`} className="underline">
                    {note.number}
                  </a>
                </td>
                <td className="px-3 py-2">
                  <StatusBadge status={note.status} />
                </td>
                <td className="px-3 py-2">{note.type === "pre_payment" ? "before payment" : "after payment"}</td>
                <td className="px-3 py-2 tabular-nums">{money(note.total_amount_atom)}</td>
                <td className="px-3 py-2 tabular-nums">
                  {money(note.refund_amount_atom)} / {money(note.credit_amount_atom)} / {money(note.out_of_band_amount_atom)}
                </td>
                <td className="px-3 py-2">{formatTime(note.created)}</td>
                <td className="px-3 py-2">
                  {note.status === "issued" && note.type === "pre_payment" && invoice.status !== "paid" && (
                    <ApiAction
                      label="Void"
                      variant="danger"
                      send={() => dashboardCall("voidCreditNote", { path: { account_id: accountId, credit_note_id: note.id }, body: {} })}
                      invalidate={invalidate}
                      confirm={{ title: `Void ${note.number}?`, body: "The invoice's amount due goes back up by its total.", label: "Void credit note" }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
        {canIssue && (
          <ApiForm
            label="Issue a credit note"
            submitLabel="Issue credit note"
            operation="createCreditNote"
            params={{ path: { account_id: accountId } }}
            invalidate={invalidate}
            confirm={{
              title: "Issue this credit note?",
              body: paid ? "The refund part is refunded to the customer's payment now; the credit part goes to their balance." : "The invoice's amount due goes down by its total.",
              label: "Issue",
            }}
            summary={creditNoteTotals({ currency: invoice.currency, paid, creditableAtom: creditable, dueAtom: invoice.due_amount_atom, money })}
            confirmation={(note) => `Issued ${note.number} for ${money(note.total_amount_atom)}.`}
            fields={[
              {
                name: "amount",
                label: "Amount (tax included)",
                kind: "money",
                currency: invoice.currency,
                required: true,
                hint: `At most ${money(Math.min(creditable, paid ? creditable : invoice.due_amount_atom))}.`,
                errorFields: ["amount_atom", "lines"],
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
            toBody={(values, { locale }) => {
              const atoms = (value: string | undefined) => (value?.trim() ? toAtoms(value, invoice.currency, locale) : undefined);
              const split = paid
                ? { refund_amount_atom: atoms(values.refund), credit_amount_atom: atoms(values.credit), out_of_band_amount_atom: atoms(values.out_of_band) }
                : {};
              return {
                invoice: invoice.id,
                amount_atom: atoms(values.amount),
                reason: values.reason,
                ...(values.memo ? { memo: values.memo } : {}),
                ...Object.fromEntries(Object.entries(split).filter(([, value]) => value !== undefined)),
              };
            }}
          />
        )}
      </div>
    </Card>
  );
}
