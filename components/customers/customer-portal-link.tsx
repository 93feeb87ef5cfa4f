"use client";

import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { ApiAction } from "@/components/objects/confirm-action";
import { Card, formatTime, ShownOnce } from "@/components/ui";

/**
 * "Create portal link": the same `POST /portal-sessions` a merchant's server calls. The link is
 * single use and answered once, so it is shown once here (copyable) and never read back. "Create
 * add-card link" is the same with Stripe's `payment_method_update` flow: the link opens on the
 * portal's payment method page, where the customer saves a card (Stripe's SetupIntent when the
 * account is connected to Stripe, docs/payments.md "Saving a card with a SetupIntent").
 */
export function CustomerPortalLink({ accountId, customerId }: { accountId: string; customerId: string }) {
  const [link, setLink] = useState<{ url: string; expiresAt: string; addCard: boolean } | null>(null);
  const create = (addCard: boolean) => () =>
    dashboardCall("createPortalSession", {
      path: { account_id: accountId },
      body: { customer: customerId, ...(addCard ? { flow: { type: "payment_method_update" as const } } : {}) },
    });
  return (
    <Card title="Customer portal">
      <div className="space-y-3 text-sm">
        <p className="text-slate-600">A single-use link to the hosted portal for this customer, valid for an hour. Send it to them; opening it signs them in. The add-card link opens on the page where they save a card for their renewals.</p>
        {link && (
          <>
            <ShownOnce label={link.addCard ? "Add-card link" : "Portal link"} value={link.url} />
            <p className="text-slate-600">Valid until {formatTime(link.expiresAt)}, once.</p>
          </>
        )}
        <div className="flex flex-wrap gap-2">
          <ApiAction
            label="Create portal link"
            send={create(false)}
            invalidate={[["events", accountId]]}
            onDone={(session) => setLink({ url: session.url, expiresAt: session.expires_at, addCard: false })}
          />
          <ApiAction
            label="Create add-card link"
            send={create(true)}
            invalidate={[["events", accountId]]}
            onDone={(session) => setLink({ url: session.url, expiresAt: session.expires_at, addCard: true })}
          />
        </div>
      </div>
    </Card>
  );
}
