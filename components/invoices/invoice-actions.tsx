"use client";

import { dashboardCall } from "@/components/api-client";
import { ApiAction } from "@/components/objects/confirm-action";
import { invoiceActions, invoiceFacts } from "@/lib/invoices/rules";
import { invoiceQueryKeys } from "./format";
import type { Invoice } from "@/components/api-types";

/**
 * Finalize a draft; pay an open or uncollectible invoice (with the sandbox card in a sandbox
 * account, or as paid out of band); mark an open one uncollectible; void one without payment; email
 * a finalized one to the customer (again). Each
 * button shows exactly when the API accepts the action (lib/invoices/rules.ts, read by the API's
 * guards too). Paying, writing off and voiding ask first.
 */
export function InvoiceActions({ accountId, invoice }: { accountId: string; invoice: Invoice }) {
  const path = { account_id: accountId, invoice_id: invoice.id };
  const invalidate = [invoiceQueryKeys.invoices(accountId), ["events", accountId]];
  const can = invoiceActions(invoiceFacts(invoice));
  if (!Object.values(can).some(Boolean)) return null;
  return (
    <div className="flex flex-wrap items-center gap-2" aria-label="Invoice actions" role="group">
      {can.finalize && <ApiAction label="Finalize" variant="primary" send={() => dashboardCall("finalizeInvoice", { path, body: {} })} invalidate={invalidate} />}
      {can.pay && !invoice.livemode && (
        <ApiAction
          label="Pay with sandbox card"
          variant="primary"
          send={() => dashboardCall("payInvoice", { path, body: { payment_method: "pm_sandbox_succeeds" } })}
          invalidate={invalidate}
          confirm={{ title: "Pay this invoice?", body: "A sandbox card payment for the amount due is made now.", label: "Pay" }}
        />
      )}
      {can.pay && (
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
      {can.markUncollectible && (
        <ApiAction
          label="Mark uncollectible"
          send={() => dashboardCall("markInvoiceUncollectible", { path, body: {} })}
          invalidate={invalidate}
          confirm={{
            title: "Mark as uncollectible?",
            body: "Its payment is no longer expected and dunning stops. It can still be paid or voided later.",
            label: "Mark uncollectible",
          }}
        />
      )}
      {can.send && (
        <ApiAction
          label="Email invoice"
          send={() => dashboardCall("sendInvoice", { path, body: {} })}
          invalidate={[...invalidate, ["emails", accountId]]}
          confirm={{ title: "Email this invoice?", body: "The customer receives it with its PDF and the link to pay it online.", label: "Send" }}
        />
      )}
      {can.void && (
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
