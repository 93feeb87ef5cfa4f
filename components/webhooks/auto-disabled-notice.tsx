"use client";

import { useCan } from "@/components/dashboard/role";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import { Button, formatTime } from "@/components/ui";
import type { WebhookEndpoint } from "@/components/api-types";

/**
 * Shown while the service has disabled the endpoint for failing: why and when, and a way back
 * that replays the events it missed (from when its deliveries started failing).
 */
export function AutoDisabledNotice({
  endpoint,
  accountId,
  onChanged,
}: {
  endpoint: WebhookEndpoint;
  accountId: string;
  onChanged: (endpoint: WebhookEndpoint) => void;
}) {
  const canEnable = useCan("developer");
  const enable = useApiMutation({
    call: async (replay: boolean) => {
      // Read before enabling: enabling clears the failure streak.
      const since = endpoint.failing_since ?? endpoint.disabled_at;
      const enabled = await dashboardCall("updateWebhookEndpoint", { path: { account_id: accountId, endpoint_id: endpoint.id }, body: { enabled: true } });
      const replayed = replay && since ? await dashboardCall("replayWebhookEndpointEvents", { path: { account_id: accountId, endpoint_id: endpoint.id }, body: { since } }) : null;
      return { enabled, replayed };
    },
    onAnswer: ({ enabled }) => onChanged(enabled),
  });
  if (!endpoint.disabled_reason) {
    return enable.data?.replayed ? (
      <p role="status" className="rounded border border-emerald-200 bg-emerald-50 p-3 text-sm">
        Enabled again; {enable.data.replayed.replayed} missed event{enable.data.replayed.replayed === 1 ? "" : "s"} queued for delivery
        {enable.data.replayed.has_more ? " (more remain: continue with Replay events below)" : ""}.
      </p>
    ) : null;
  }
  return (
    <div role="alert" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
      <p className="font-medium">Disabled automatically on {formatTime(endpoint.disabled_at)}</p>
      <p className="mt-1">{endpoint.disabled_reason}</p>
      {canEnable && (
        <div className="mt-3 flex flex-wrap gap-2">
          <Button disabled={enable.isPending} onClick={() => enable.mutate(true)}>
            Enable and replay missed events
          </Button>
          <Button variant="secondary" disabled={enable.isPending} onClick={() => enable.mutate(false)}>
            Enable only
          </Button>
        </div>
      )}
      <MutationError mutation={enable} />
    </div>
  );
}
