"use client";

import Link from "next/link";
import { useId, useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import { Button } from "@/components/ui";
import { EVENT_CATALOGUE, isEventType } from "@/lib/events/catalogue";
import { deliveriesKey } from "./endpoint-deliveries";
import { healthKey } from "./endpoint-health";

const NEWEST = "";

/** Sends a sample event of a chosen type (or the newest real event again) to this endpoint. */
export function SendTestEvent({ accountId, endpointId }: { accountId: string; endpointId: string }) {
  const selectId = useId();
  const [type, setType] = useState<string>("customer.created");
  const send = useApiMutation({
    call: () => dashboardCall("sendWebhookTestEvent", { path: { account_id: accountId, endpoint_id: endpointId }, body: isEventType(type) ? { type } : {} }),
    refresh: [deliveriesKey(accountId, endpointId), healthKey(accountId, endpointId)],
  });
  return (
    <div className="space-y-3 text-sm">
      <div className="flex flex-wrap items-end gap-2">
        <div className="min-w-0 max-w-full">
          <label htmlFor={selectId} className="block font-medium text-slate-800">
            Event type
          </label>
          <select
            id={selectId}
            className="mt-1 w-full max-w-full rounded border border-slate-300 px-2 py-1"
            value={type}
            onChange={(event) => setType(event.target.value)}
          >
            <option value={NEWEST}>The newest real event (sent again)</option>
            {EVENT_CATALOGUE.map((group) => (
              <optgroup key={group.group} label={group.group}>
                {group.types.map((option) => (
                  <option key={option} value={option}>
                    {option} (sample)
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </div>
        <Button variant="secondary" disabled={send.isPending} onClick={() => send.mutate()}>
          Send test event
        </Button>
      </div>
      <p className="text-slate-600">
        Samples are realistic events of a new sample object, signed like any delivery and marked{" "}
        <code className="font-mono">&quot;test&quot;: true</code>.
      </p>
      <MutationError mutation={send} />
      {send.data && (
        <p role="status" className="rounded border border-slate-200 bg-slate-50 p-3">
          Test event sent: event{" "}
          <Link
            href={`/accounts/${accountId}/events/${encodeURIComponent(send.data.event_id)}`}
            className="font-mono text-indigo-700 underline-offset-2 hover:underline"
          >
            {send.data.event_id}
          </Link>{" "}
          is being delivered (delivery <span className="font-mono">{send.data.id}</span>). Its outcome appears in Recent
          deliveries below.
        </p>
      )}
    </div>
  );
}
