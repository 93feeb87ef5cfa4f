"use client";

import { dashboardCall } from "@/components/api-client";
import { ApiAction } from "@/components/objects/confirm-action";
import { invoiceQueryKeys } from "./format";
import type { Invoice } from "@/components/api-types";

/**
 * Finalize a draft; pay an open invoice (with the sandbox card in a sandbox account, or as paid out
 * of band); void an open one (the API voids open or uncollectible invoices only). Paying and voiding ask first.
 */
export function InvoiceActions({ accountId, invoice }: { accountId: string; invoice: Invoice }) {
  const path = { account_id: accountId, invoice_id: invoice.id };
  const invalidate = [invoiceQueryKeys.invoices(accountId), ["events", accountId]];
  if (invoice.status !== "draft" && invoice.status !== "open") return null;
  return (
    <div className="flex flex-wrap items-center gap-2" aria-label="Invoice actions" role="group">
      {invoice.status === "draft" && <ApiAction label="Finalize" variant="primary" send={() => dashboardCall("finalizeInvoice", { path, body: {} })} invalidate={invalidate} />}
      {invoice.status === "open" && !invoice.livemode && (
        <ApiAction
          label="Pay with sandbox card"
          variant="primary"
          send={() => dashboardCall("payInvoice", { path, body: { payment_method: "pm_sandbox_succeeds" } })}
          invalidate={invalidate}
          confirm={{ title: "Pay this invoice?", body: "A sandbox card payment for the amount due is made now.", label: "Pay" }}
        />
      )}
      {invoice.status === "open" && (
        <ApiAction
          label="Mark paid out of band"
          send={() => dashboardCall("payInvoice", { path, body: { paid_out_of_band: true } })}
          invalidate={invalidate}
          confirm={{
            title: "Mark as paid out of band?",
            body: "Record that the customer paid outside this service (cash, bank transfer). No money moves here.",
            label: "Mark paid",
          }}
        />
      )}
      {invoice.status === "open" && (
        <ApiAction
          label="Email invoice"
          send={() => dashboardCall("sendInvoice", { path, body: {} })}
          invalidate={[...invalidate, ["emails", accountId]]}
          confirm={{ title: "Email this invoice?", body: "The customer receives it with its PDF and the link to pay it online.", label: "Send" }}
        />
      )}
      {invoice.status === "open" && (
        <ApiAction
          label="Void"
          send={() => dashboardCall("voidInvoice", { path, body: {} })}
          variant="danger"
          invalidate={invalidate}
          confirm={{ title: "Void this invoice?", body: "It can no longer be paid. This cannot be undone.", label: "Void invoice" }}
        />
      )}
    </div>
  );
}
