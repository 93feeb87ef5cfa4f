"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import { ErrorBox, Loading } from "@/components/ui";
import { formatSuccessRate } from "./format";

/** While deliveries are in flight, their outcomes are fetched every 3 s. */
export const POLL_MS = 3_000;
/** Otherwise slowly, so deliveries of events made elsewhere (the API, other tabs) still show up. */
export const IDLE_POLL_MS = 20_000;

export function healthKey(accountId: string, endpointId: string) {
  return ["webhook-health", accountId, endpointId] as const;
}

/** The last 24 hours of the endpoint's deliveries; polls while some are still in flight. */
export function EndpointHealth({ accountId, endpointId }: { accountId: string; endpointId: string }) {
  const health = useQuery({
    queryKey: healthKey(accountId, endpointId),
    queryFn: () => dashboardCall("getWebhookEndpointHealth", { path: { account_id: accountId, endpoint_id: endpointId } }),
    // Every in-flight delivery of the window is counted here, so these counts say how fast to poll.
    refetchInterval: (query) => {
      const data = query.state.data;
      return data && data.pending + data.retrying > 0 ? POLL_MS : IDLE_POLL_MS;
    },
  });

  if (health.isPending) return <Loading what="Loading delivery health" />;
  if (health.isError) return <ErrorBox error={health.error} />;
  const { success_rate, delivered, failed, retrying, pending, window_hours } = health.data;

  return (
    <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-5">
      <div className="col-span-2 sm:col-span-1">
        <dt className="text-slate-500">Success rate ({window_hours} h)</dt>
        <dd className="text-2xl font-semibold">{formatSuccessRate(success_rate)}</dd>
      </div>
      <Count label="Delivered" value={delivered} />
      <Count label="Failed" value={failed} />
      <Count label="Retrying" value={retrying} />
      <Count label="Pending" value={pending} />
    </dl>
  );
}

function Count({ label, value }: { label: string; value: number }) {
  return (
    <div>
      <dt className="text-slate-500">{label}</dt>
      <dd className="text-lg font-medium">{value}</dd>
    </div>
  );
}
