"use client";

import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { ApiAction } from "@/components/objects/confirm-action";
import { Card, formatTime, ShownOnce } from "@/components/ui";

/**
 * "Create portal link": the same `POST /portal-sessions` a merchant's server calls. The link is
 * single use and answered once, so it is shown once here (copyable) and never read back.
 */
export function CustomerPortalLink({ accountId, customerId }: { accountId: string; customerId: string }) {
  const [link, setLink] = useState<{ url: string; expiresAt: string } | null>(null);
  return (
    <Card title="Customer portal">
      <div className="space-y-3 text-sm">
        <p className="text-slate-600">A single-use link to the hosted portal for this customer, valid for an hour. Send it to them; opening it signs them in.</p>
        {link && (
          <>
            <ShownOnce label="Portal link" value={link.url} />
            <p className="text-slate-600">Valid until {formatTime(link.expiresAt)}, once.</p>
          </>
        )}
        <ApiAction
          label="Create portal link"
          send={() => dashboardCall("createPortalSession", { path: { account_id: accountId }, body: { customer: customerId } })}
          invalidate={[["events", accountId]]}
          onDone={(session) => setLink({ url: session.url, expiresAt: session.expires_at })}
        />
      </div>
    </Card>
  );
}
