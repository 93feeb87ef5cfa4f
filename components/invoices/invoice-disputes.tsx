"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import type { Invoice } from "@/components/api-types";
import { ObjectLink } from "@/components/objects/links";
import { Card, ErrorBox, formatTime, Loading, StatusBadge, Table } from "@/components/ui";
import { disputeStatusWords } from "@/lib/disputes/statuses";
import { formatMoney, invoiceQueryKeys } from "./format";

/**
 * The disputes of the payment that paid the invoice (its payment intent's), as the processor
 * reported them (docs/payments.md, "Disputes"): status in words, amount, evidence due date.
 * Nothing is shown for an invoice no processor charged, or whose payment nobody disputed.
 */
export function InvoiceDisputes({ accountId, invoice }: { accountId: string; invoice: Invoice }) {
  const intent = invoice.payment_intent;
  const disputes = useQuery({
    queryKey: [...invoiceQueryKeys.invoice(accountId, invoice.id), "disputes", intent],
    queryFn: () => dashboardCall("listDisputes", { path: { account_id: accountId }, query: { payment_intent: intent!, limit: 100 } }),
    enabled: intent !== null,
  });
  if (intent === null) return null;
  if (disputes.isPending) return <Loading what="Loading the disputes" />;
  if (disputes.isError) return <ErrorBox error={disputes.error} />;
  if (disputes.data.items.length === 0) return null;
  return (
    <Card title="Disputes">
      <Table label="Disputes" head={["Status", "Amount", "Reason", "Evidence due", "Payment", "Opened"]}>
        {disputes.data.items.map((dispute) => (
          <tr key={dispute.id}>
            <td className="px-3 py-2">
              <ObjectLink accountId={accountId} id={dispute.id}>
                <StatusBadge status={dispute.status} label={disputeStatusWords(dispute.status)} />
              </ObjectLink>
            </td>
            <td className="px-3 py-2 tabular-nums">{formatMoney(dispute.amount_atom, dispute.currency)}</td>
            <td className="px-3 py-2">{dispute.reason.replaceAll("_", " ")}</td>
            <td className="px-3 py-2">{dispute.evidence_due_by ? formatTime(dispute.evidence_due_by) : "—"}</td>
            <td className="px-3 py-2">
              <ObjectLink accountId={accountId} id={dispute.payment} />
            </td>
            <td className="px-3 py-2">{formatTime(dispute.created)}</td>
          </tr>
        ))}
      </Table>
    </Card>
  );
}
