"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { DetailItem, Time } from "@/components/events/bits";
import { eventsHref } from "@/components/events/format";
import { CustomerName, LineUnitPrice, PlanSummary, SubscriptionLink, TaxRateName } from "@/components/objects/names";
import { collectionLabel } from "@/components/objects/collection-method";
import { dashboardCall } from "@/components/api-client";
import { BackLink, detailFallback, useApiObject } from "@/components/ui/detail";
import { Card, CopyButton, StatusBadge, Table } from "@/components/ui";
import { formatMoney, invoiceQueryKeys, invoicesHref } from "./format";
import { InvoiceActions } from "./invoice-actions";
import { EmailList } from "@/components/emails/email-list";
import { InvoiceCreditNotes } from "./invoice-credit-notes";
import { InvoiceDisputes } from "./invoice-disputes";
import { operationPath } from "@/lib/operation-paths";

const linkClass = "text-sm text-indigo-700 underline hover:text-indigo-900";

function Dash() {
  return <span className="text-slate-600">—</span>;
}

/** One invoice: its amounts, lifecycle dates and lines, and a way to its event timeline. */
export function InvoiceDetail({ accountId, invoiceId }: { accountId: string; invoiceId: string }) {
  const query = useApiObject(invoiceQueryKeys.invoice(accountId, invoiceId), () =>
    dashboardCall("getInvoice", { path: { account_id: accountId, invoice_id: invoiceId } }),
  );
  const back = <BackLink href={invoicesHref(accountId)}>Back to invoices</BackLink>;
  const fallback = detailFallback(query, {
    noun: "invoice",
    id: invoiceId,
    back,
    notFoundHint: "It may belong to the other (live or sandbox) account.",
  });
  if (fallback || !query.data) return fallback;

  const invoice = query.data;
  const money = (atoms: number): ReactNode => <span className="tabular-nums">{formatMoney(atoms, invoice.currency)}</span>;
  return (
    <>
      <div className="mb-2">{back}</div>
      <div className="mb-4 flex flex-wrap items-center justify-between gap-2">
        <h1 className="min-w-0 break-all font-mono text-xl font-semibold">
          {invoice.number && <span className="mr-2">{invoice.number}</span>}
          <span className={invoice.number ? "text-sm font-normal text-slate-600" : ""}>{invoice.id}</span>
        </h1>
        <div className="flex flex-wrap items-center gap-2">
          <CopyButton value={invoice.id} label="Copy id" />
          {invoice.status !== "draft" && (
            <a href={operationPath("getInvoicePdf", { account_id: accountId, invoice_id: invoice.id })} download={`${invoice.number ?? invoice.id}.pdf`} className={linkClass}>
              Download PDF
            </a>
          )}
          {invoice.hosted_invoice_url && <CopyButton value={invoice.hosted_invoice_url} label="Copy hosted link" />}
          <Link href={eventsHref(accountId, { aggregate_id: invoice.id })} className={linkClass}>
            View timeline
          </Link>
        </div>
      </div>
      <div className="space-y-4">
        <InvoiceActions accountId={accountId} invoice={invoice} />
        <Card title="Invoice">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
            <DetailItem label="Status">
              <StatusBadge status={invoice.status} />
            </DetailItem>
            <DetailItem label="Customer">
              <CustomerName accountId={accountId} id={invoice.customer} />
            </DetailItem>
            <DetailItem label="Number">{invoice.number ?? <Dash />}</DetailItem>
            <DetailItem label="Currency">{invoice.currency.toUpperCase()}</DetailItem>
            <DetailItem label="Subtotal">{money(invoice.subtotal_atom)}</DetailItem>
            <DetailItem label="Discount">
              {money(invoice.discount_atom)}
              {invoice.discount && <code className="ml-2 break-all font-mono text-xs text-slate-600">{invoice.discount}</code>}
            </DetailItem>
            <DetailItem label="Tax">
              {money(invoice.tax_atom)}
              {invoice.reverse_charge && <span className="ml-2 text-xs text-slate-600">reverse charge</span>}
              {invoice.total_taxes.map((tax) => (
                <span key={tax.tax_rate} className="block text-xs text-slate-600">
                  <TaxRateName accountId={accountId} id={tax.tax_rate} />: {formatMoney(tax.amount_atom, invoice.currency)}
                  {tax.inclusive ? " (incl.)" : ""}
                </span>
              ))}
            </DetailItem>
            <DetailItem label="Total">
              <span className="font-semibold">{money(invoice.total_amount_atom)}</span>
            </DetailItem>
            <DetailItem label="Due">{money(invoice.due_amount_atom)}</DetailItem>
            <DetailItem label="Collection">{collectionLabel(invoice)}</DetailItem>
            <DetailItem label="Paid">{money(invoice.paid_amount_atom)}</DetailItem>
            {(invoice.pre_payment_credit_notes_amount_atom > 0 || invoice.post_payment_credit_notes_amount_atom > 0) && (
              <DetailItem label="Credit notes">
                {money(invoice.pre_payment_credit_notes_amount_atom + invoice.post_payment_credit_notes_amount_atom)}
              </DetailItem>
            )}
            {invoice.starting_balance_atom !== null && invoice.starting_balance_atom !== invoice.ending_balance_atom && (
              <DetailItem label="Balance applied">{money(invoice.starting_balance_atom - (invoice.ending_balance_atom ?? 0))}</DetailItem>
            )}
            <DetailItem label="Subscription">
              {invoice.subscription ? <SubscriptionLink accountId={accountId} id={invoice.subscription} /> : <Dash />}
            </DetailItem>
            <DetailItem label="Description" wide>
              {invoice.description ? <span className="whitespace-pre-wrap break-words">{invoice.description}</span> : <Dash />}
            </DetailItem>
          </dl>
        </Card>
        <Card title="Dates">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
            <DetailItem label="Created">
              <Time iso={invoice.created} />
            </DetailItem>
            <DetailItem label="Due date">
              <Time iso={invoice.due_date} />
            </DetailItem>
            <DetailItem label="Finalized">
              <Time iso={invoice.finalized_at} />
            </DetailItem>
            <DetailItem label="Paid">
              <Time iso={invoice.paid_at} />
            </DetailItem>
            <DetailItem label="Voided">
              <Time iso={invoice.voided_at} />
            </DetailItem>
            <DetailItem label="Marked uncollectible">
              <Time iso={invoice.marked_uncollectible_at} />
            </DetailItem>
            <DetailItem label="Overdue since">
              <Time iso={invoice.overdue_at} />
            </DetailItem>
            <DetailItem label="Automatic payment attempts">{invoice.attempt_count}</DetailItem>
            <DetailItem label="Next payment attempt">
              <Time iso={invoice.next_payment_attempt} />
            </DetailItem>
            <DetailItem label="Updated">
              <Time iso={invoice.updated} />
            </DetailItem>
            <DetailItem label="Livemode">{invoice.livemode ? "true (live)" : "false (sandbox)"}</DetailItem>
          </dl>
        </Card>
        <Card title="Lines">
          {invoice.lines.length === 0 ? (
            <p className="text-sm text-slate-600">No lines.</p>
          ) : (
            <Table label="Lines" head={["Description / price", "Quantity", "Unit amount", "Tax", "Amount"]}>
              {invoice.lines.map((line) => (
                <tr key={line.id} className="align-top">
                  <td className="px-2 py-2">
                    {line.description && <span className="block whitespace-pre-wrap break-words">{line.description}</span>}
                    {line.price && (
                      <span className="block text-xs">
                        <PlanSummary accountId={accountId} priceId={line.price} quantity={line.quantity} />
                        <code className="block break-all font-mono text-slate-600">{line.price}</code>
                      </span>
                    )}
                    {!line.description && !line.price && <Dash />}
                  </td>
                  <td className="px-2 py-2 tabular-nums">{line.quantity}</td>
                  <td className="whitespace-nowrap px-2 py-2">
                    <LineUnitPrice accountId={accountId} line={line} currency={invoice.currency} />
                  </td>
                  <td className="whitespace-nowrap px-2 py-2">
                    {line.tax_amounts.length === 0 ? <Dash /> : line.tax_amounts.map((tax) => (
                          <span key={tax.tax_rate} className="block">
                            {money(tax.amount_atom)}{" "}
                            <span className="text-xs text-slate-600">
                              <TaxRateName accountId={accountId} id={tax.tax_rate} />
                            </span>
                          </span>
                        ))}
                  </td>
                  <td className="whitespace-nowrap px-2 py-2">{money(line.amount_atom)}</td>
                </tr>
              ))}
            </Table>
          )}
        </Card>
        <InvoiceCreditNotes accountId={accountId} invoice={invoice} />
        <InvoiceDisputes accountId={accountId} invoice={invoice} />
        {invoice.status !== "draft" && <EmailList accountId={accountId} invoice={invoice.id} />}
      </div>
    </>
  );
}
