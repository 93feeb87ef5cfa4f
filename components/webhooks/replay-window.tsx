"use client";

import { useId, useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import type { WebhookReplayResult as ReplayResult } from "@/components/api-types";
import { Button } from "@/components/ui";
import { deliveriesKey } from "./endpoint-deliveries";

/** `<input type="datetime-local">` value of an ISO time, in the browser's zone. */
function localInput(iso: string): string {
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** Sends every subscribed event of a window again to this endpoint (1000 per call, continued on demand). */
export function ReplayWindow({ accountId, endpointId }: { accountId: string; endpointId: string }) {
  const sinceId = useId();
  const untilId = useId();
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 86_400_000).toISOString()));
  const [until, setUntil] = useState("");
  const [total, setTotal] = useState(0);
  const replay = useApiMutation({
    call: (continued: ReplayResult | null) =>
      dashboardCall("replayWebhookEndpointEvents", {
        path: { account_id: accountId, endpoint_id: endpointId },
        body: continued
          ? { since: continued.since, until: continued.until, ...(continued.next_starting_after ? { starting_after: continued.next_starting_after } : {}) }
          : { since: new Date(since).toISOString(), ...(until ? { until: new Date(until).toISOString() } : {}) },
      }),
    onAnswer: (result, continued) => setTotal((sum) => (continued ? sum : 0) + result.replayed),
    refresh: [deliveriesKey(accountId, endpointId)],
    refreshInBackground: true,
  });
  return (
    <div className="space-y-3 text-sm">
      <p className="text-slate-600">
        Sends every event of the window that this endpoint subscribes to again, delivered ones included. Receivers see
        each event&apos;s usual <code className="font-mono">webhook-id</code>.
      </p>
      <div className="flex flex-wrap items-end gap-3">
        <div>
          <label htmlFor={sinceId} className="block font-medium text-slate-800">
            Since
          </label>
          <input id={sinceId} type="datetime-local" required value={since} onChange={(e) => setSince(e.target.value)} className="mt-1 rounded border border-slate-300 px-2 py-1" />
        </div>
        <div>
          <label htmlFor={untilId} className="block font-medium text-slate-800">
            Until (optional)
          </label>
          <input id={untilId} type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} className="mt-1 rounded border border-slate-300 px-2 py-1" />
        </div>
        <Button variant="secondary" disabled={replay.isPending || !since} onClick={() => replay.mutate(null)}>
          Replay events
        </Button>
      </div>
      <MutationError mutation={replay} />
      {replay.data && (
        <div role="status" className="rounded border border-slate-200 bg-slate-50 p-3">
          {total} event{total === 1 ? "" : "s"} queued for delivery again.
          {replay.data.has_more && (
            <Button variant="secondary" disabled={replay.isPending} onClick={() => replay.mutate(replay.data)}>
              Replay the next 1000
            </Button>
          )}
        </div>
      )}
    </div>
  );
}

