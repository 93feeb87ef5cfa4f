"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import type { Invoice } from "@/components/api-types";
import { ApiAction } from "@/components/objects/confirm-action";
import { Card, ErrorBox, formatTime, Loading, StatusBadge, Table } from "@/components/ui";
import { creditNoteActions } from "@/lib/credit-notes/rules";
import { canCredit, invoiceFacts } from "@/lib/invoices/rules";
import { operationPath } from "@/lib/operation-paths";
import { formatMoney, invoiceQueryKeys } from "./format";
import { IssueCreditNote } from "./issue-credit-note";

/** The invoice's credit notes (void a pre-payment one) and "Issue a credit note" (issue-credit-note.tsx). */
export function InvoiceCreditNotes({ accountId, invoice }: { accountId: string; invoice: Invoice }) {
  const notesKey = [...invoiceQueryKeys.invoice(accountId, invoice.id), "credit-notes"] as const;
  const notes = useQuery({
    queryKey: notesKey,
    queryFn: () => dashboardCall("listCreditNotes", { path: { account_id: accountId }, query: { invoice: invoice.id, limit: 100 } }),
  });
  // What the invoice and each note allow, as the API's guards decide (lib/invoices/rules.ts, lib/credit-notes/rules.ts).
  const facts = invoiceFacts(invoice);
  const creditable = facts.creditableAtom;
  const canIssue = canCredit(facts);
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
                  {creditNoteActions({ status: note.status, type: note.type, invoiceStatus: invoice.status }).void && (
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
          <IssueCreditNote accountId={accountId} invoice={invoice} notes={notes.data?.items ?? []} creditable={creditable} invalidate={invalidate} money={money} />
        )}
      </div>
    </Card>
  );
}
