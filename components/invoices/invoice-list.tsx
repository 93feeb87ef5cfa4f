"use client";

import Link from "next/link";
import { CustomerName } from "@/components/objects/names";
import { Time } from "@/components/events/bits";
import { eventsHref } from "@/components/events/format";
import { StatusBadge } from "@/components/ui";
import { dashboardCall } from "@/components/api-client";
import { StatusFilteredList } from "@/components/ui/status-list";
import { formatMoney, INVOICE_STATUS_OPTIONS, invoiceHref, invoiceQueryKeys } from "./format";
import type { Invoice } from "@/components/api-types";
import { operationLine, operationPath } from "@/lib/operation-paths";

const linkClass = "text-indigo-700 underline hover:text-indigo-900";

/** The account's (or one customer's) invoices, with a status filter and pages kept in the URL. */
export function InvoiceList({ accountId, customer }: { accountId: string; customer?: string }) {
  // On a customer's page: only theirs, under its own URL keys beside the page's other lists.
  const related = customer ? { scope: { customer }, param: "invoice_", title: "Invoices" } : {};
  return (
    <StatusFilteredList<Invoice, Invoice["status"]>
      list={(query) => dashboardCall("listInvoices", { path: { account_id: accountId }, query })}
      noun={["invoice", "invoices"]}
      statuses={INVOICE_STATUS_OPTIONS}
      queryKey={invoiceQueryKeys.invoices(accountId)}
      exportPath={operationPath("exportInvoices", { account_id: accountId })}
      head={["Invoice", "Customer", "Status", "Tax", "Total", "Due", "Created", "Events"]}
      {...related}
      emptyHint={customer ? "No invoices for this customer yet." : `No invoices yet. Create one with New invoice, or with ${operationLine("createInvoiceForTokenAccount")} from your server.`}
      row={(invoice) => (
<tr key={invoice.id} className="align-top">
        <td className="px-2 py-2">
          <Link href={invoiceHref(accountId, invoice.id)} className={`break-all font-mono text-xs font-medium ${linkClass}`}>
            {invoice.number && <span className="block font-sans text-sm">{invoice.number}</span>}
            {invoice.id}
          </Link>
        </td>
        <td className="px-2 py-2">
          <CustomerName accountId={accountId} id={invoice.customer} />
        </td>
        <td className="px-2 py-2">
          <StatusBadge status={invoice.status} />
        </td>
        <td className="whitespace-nowrap px-2 py-2 tabular-nums">{formatMoney(invoice.tax_atom, invoice.currency)}</td>
        <td className="whitespace-nowrap px-2 py-2 tabular-nums">{formatMoney(invoice.total_amount_atom, invoice.currency)}</td>
        <td className="whitespace-nowrap px-2 py-2 tabular-nums">{formatMoney(invoice.due_amount_atom, invoice.currency)}</td>
        <td className="whitespace-nowrap px-2 py-2">
          <Time iso={invoice.created} />
        </td>
        <td className="px-2 py-2">
          <Link
            href={eventsHref(accountId, { aggregate_id: invoice.id })}
            className={`whitespace-nowrap ${linkClass}`}
            title="Show this invoice's whole event timeline"
          >
            Timeline
          </Link>
        </td>
      </tr>
      )}
    />
  );
}
