"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { dashboardCall } from "@/components/api-client";
import { Time } from "@/components/events/bits";
import { formatMoney, invoiceHref, invoiceQueryKeys } from "@/components/invoices/format";
import type { Subscription } from "@/components/api-types";

/**
 * Says so when one of the subscription's invoices is open (finalized, not paid): an active
 * subscription can still owe its first invoice. The API filters invoices by customer, not by
 * subscription, so the customer's open invoices are narrowed here.
 */
export function UnpaidInvoiceNotice({ accountId, subscription }: { accountId: string; subscription: Subscription }) {
  const query = useQuery({
    queryKey: [...invoiceQueryKeys.invoices(accountId), "open-of", subscription.id],
    queryFn: () =>
      dashboardCall("listInvoices", { path: { account_id: accountId }, query: { customer: subscription.customer, status: "open", limit: 100 } }),
  });
  // Each open invoice once, named by its number (a subscription can owe its first invoice and a renewal).
  const unpaid = (query.data?.items ?? []).filter((invoice, index, all) => invoice.subscription === subscription.id && all.findIndex((other) => other.id === invoice.id) === index);
  if (unpaid.length === 0) return null;
  return (
    <div role="status" aria-label="Unpaid invoice" className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900">
      {unpaid.map((invoice) => {
        // The server marks an invoice overdue (on the account's clock, test clocks included).
        const pastDue = invoice.overdue_at !== null;
        return (
          <p key={invoice.id} className="break-words">
            <span className="font-semibold">{pastDue ? "Past due: " : "Unpaid: "}</span>
            invoice <span data-testid="unpaid-invoice-number">{invoice.number ?? invoice.id}</span> of {formatMoney(invoice.due_amount_atom, invoice.currency)} is open
            {pastDue ? (
              <>
                {" "}and past due since <Time iso={invoice.overdue_at} />
              </>
            ) : (
              invoice.due_date && (
                <>
                  , due <Time iso={invoice.due_date} />
                </>
              )
            )}
            .{" "}
            <Link href={invoiceHref(accountId, invoice.id)} className="text-indigo-700 underline hover:text-indigo-900">
              View unpaid invoice {invoice.number ?? ""}
            </Link>
          </p>
        );
      })}
    </div>
  );
}
